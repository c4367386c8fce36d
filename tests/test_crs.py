"""CRS inputs as producers write them become the EPSG code a store records; a CRS without a
code is matched against EPSG, and one with no equivalent is refused naming the closest."""

import re

import pytest
from raster_inputs import ESRI_UTM_25S, NULL_TOWGS84_UTM_25S

from chronozarr.crs import Declared, against_target, epsg, resolve
from chronozarr.errors import InputError

import pyproj

# Daymet's CF grid mapping: Lambert conformal conic on WGS 84, no EPSG equivalent.
DAYMET_LCC = {
    "grid_mapping_name": "lambert_conformal_conic", "standard_parallel": [25.0, 60.0],
    "longitude_of_central_meridian": -100.0, "latitude_of_projection_origin": 42.5,
    "false_easting": 0.0, "false_northing": 0.0, "semi_major_axis": 6378137.0, "inverse_flattening": 298.257223563,
}


@pytest.mark.parametrize(
    "value",
    ["OGC:CRS84", "urn:ogc:def:crs:OGC:1.3:CRS84", "http://www.opengis.net/def/crs/OGC/1.3/CRS84"],
)
def test_ogc_crs84_is_recorded_as_epsg_4326(value):
    assert epsg(value, "--crs") == "EPSG:4326"


def test_crs84_as_wkt_is_recorded_as_epsg_4326():
    assert epsg(pyproj.CRS("OGC:CRS84").to_wkt(), "--crs") == "EPSG:4326"


def test_a_wkt_carrying_its_epsg_code_is_that_code_without_a_note():
    assert resolve(pyproj.CRS.from_epsg(32631).to_wkt(), "x") == resolve("EPSG:32631", "x")
    assert resolve(pyproj.CRS.from_epsg(32631).to_wkt(), "x").note is None


def test_an_esri_utm_wkt_with_an_unnamed_datum_is_matched_and_the_match_is_said():
    found = resolve(ESRI_UTM_25S, "the CRS of dem.tif")
    # SIRGAS 2000 and SIRGAS 1995 / UTM 25S both fit an unnamed GRS80 datum: the later datum is recorded
    assert found.code == "EPSG:31985"
    for text in ("the CRS of dem.tif (UTM Zone 25, Southern Hemisphere) has no EPSG code", f"recorded as {found.code}",
                 "Transverse Mercator", "GRS80", "unnamed", "also equivalent: EPSG:"):
        assert text in found.note
    assert "EPSG:32725" not in found.note  # WGS 84 is another ellipsoid, however close


def test_a_proj_string_is_matched_when_its_datum_is_named_the_same():
    found = resolve("+proj=utm +zone=31 +datum=WGS84 +type=crs", "--crs")
    assert found.code == "EPSG:32631" and "WGS 84" in found.note


def test_a_lambert_conformal_grid_without_equivalent_names_the_closest_and_the_fixes():
    with pytest.raises(InputError) as caught:
        Declared(DAYMET_LCC, "grid mapping 'lambert_conformal_conic'").resolve(extent=(-50_000, -50_000, 50_000, 50_000))
    message = str(caught.value)
    assert "no EPSG CRS is equivalent to it" in message
    assert "pyproj confidence" in message and "differs in" in message
    # the centre (-100, 42.5) lies in UTM zone 14N: the reprojection target is computed for the input
    assert "gdalwarp -t_srs EPSG:32614 -r bilinear IN OUT" in message
    assert "say so with --crs EPSG:" in message and "32631" not in message


def test_a_named_datum_that_differs_is_no_match():
    other = ESRI_UTM_25S.replace('DATUM["unknown"', 'DATUM["Local_Survey_1961"')
    with pytest.raises(InputError, match=r"differs in datum \(Local_Survey_1961, not"):
        resolve(other, "the CRS of dem.tif")


def test_a_laea_without_code_is_refused_with_the_fix():
    custom = "+proj=laea +lat_0=10 +lon_0=-70 +x_0=0 +y_0=0 +ellps=GRS80 +units=m +no_defs"
    with pytest.raises(InputError, match="no EPSG CRS is equivalent.*gdalwarp -t_srs EPSG:32619"):
        epsg(custom, "--crs")


def _same_projection_and_ellipsoid(a: pyproj.CRS, b: pyproj.CRS) -> bool:
    """Independent of crs_match: the PROJ strings without datum terms are the same."""
    def terms(crs: pyproj.CRS) -> set[str]:
        return {t for t in crs.to_proj4().split() if not t.startswith(("+towgs84", "+datum", "+no_defs", "+type"))}
    return terms(a) == terms(b)


def test_against_target_relabels_equivalents_and_says_which_equivalence():
    esri = Declared(ESRI_UTM_25S, "the CRS of dem.tif")
    assert _same_projection_and_ellipsoid(pyproj.CRS.from_wkt(ESRI_UTM_25S), pyproj.CRS.from_epsg(31985))
    found = against_target(esri, "EPSG:31985")
    assert found.equivalent
    assert "relabelled as EPSG:31985, not warped" in found.note and "unnamed" in found.note
    other = against_target(Declared("EPSG:32632", "the CRS of a.tif"), "EPSG:32631")
    assert not other.equivalent
    assert other.note == (
        "the CRS of a.tif (WGS 84 / UTM zone 32N) differs from --crs EPSG:32631 in longitude of natural origin (9, not 3)"
    )
    assert against_target(Declared(pyproj.CRS.from_epsg(32631).to_wkt(), "x"), "EPSG:32631").note is None


def test_a_wgs84_utm_is_no_equivalent_of_the_same_zone_on_grs80():
    assert not against_target(Declared("EPSG:32725", "x"), "EPSG:31985").equivalent


@pytest.mark.parametrize("datum", ["D_Unknown_based_on_GRS80_ellipsoid", "User_Defined_Datum", "Not_specified_based_on_GRS80_ellipsoid"])
def test_datum_names_that_say_unnamed_with_underscores_are_unnamed(datum):
    found = resolve(ESRI_UTM_25S.replace('DATUM["unknown"', f'DATUM["{datum}"'), "the CRS of dem.tif")
    assert _same_projection_and_ellipsoid(pyproj.CRS.from_user_input(found.code), pyproj.CRS.from_wkt(ESRI_UTM_25S))


def test_a_refusal_offers_the_exact_epsg_codes_before_the_warp():
    local = ESRI_UTM_25S.replace('DATUM["unknown"', 'DATUM["Ilha_Local_1961"')
    with pytest.raises(InputError) as caught:
        resolve(local, "the CRS of dem.tif", (210_000, 9_090_000, 213_000, 9_100_000), 30.0)
    message = str(caught.value)
    assert "EPSG:31985" in message and message.index("EPSG:31985") < message.index("gdalwarp")
    assert "e.g. --crs EPSG:" in message and "Stored exactly, without resampling" in message
    offered = message.split("Stored exactly")[1].split("If the datum is another")[0]
    for code in (int(c) for c in re.findall(r"EPSG:(\d+)", offered)):
        assert _same_projection_and_ellipsoid(pyproj.CRS.from_epsg(code), pyproj.CRS.from_wkt(local))
        assert against_target(Declared(local, "x"), f"EPSG:{code}").equivalent  # --crs takes what it offers


def _gdal_wkt(proj: str) -> str:
    """The WKT GDAL writes for a PROJ string (what a GeoTIFF made from it declares)."""
    from rasterio.crs import CRS

    return CRS.from_proj4(proj).to_wkt()


def test_a_bound_crs_with_a_null_towgs84_is_matched_as_its_source_crs():
    wkt = _gdal_wkt(NULL_TOWGS84_UTM_25S)
    assert pyproj.CRS.from_wkt(wkt).is_bound  # the input really is a BoundCRS
    found = resolve(wkt, "the CRS of dem.tif")
    assert found.code == "EPSG:31985"
    assert "null Position Vector transformation" in found.note and "all 7 parameters 0" in found.note
    against = against_target(Declared(wkt, "the CRS of dem.tif"), "EPSG:31985")
    assert against.equivalent and "relabelled as EPSG:31985, not warped" in against.note
    assert "all 7 parameters 0" in against.note


def test_a_bound_crs_with_a_real_shift_is_not_equated():
    wkt = _gdal_wkt(NULL_TOWGS84_UTM_25S.replace("0,0,0,0,0,0,0", "-66.87,4.37,-38.52,0,0,0,0"))
    against = against_target(Declared(wkt, "the CRS of dem.tif"), "EPSG:31985")
    assert not against.equivalent and "a declared shift to WGS 84 (-66.87, 4.37, -38.52" in against.note
    with pytest.raises(InputError, match="no EPSG CRS is equivalent to it"):
        resolve(wkt, "the CRS of dem.tif", (210_000, 9_090_000, 213_000, 9_100_000), 30.0)


def test_a_null_three_parameter_shift_is_the_identity_too():
    wkt = _gdal_wkt(NULL_TOWGS84_UTM_25S.replace("0,0,0,0,0,0,0", "0,0,0"))
    assert against_target(Declared(wkt, "x"), "EPSG:31985").equivalent


def _null_towgs84_wkts() -> dict[str, str]:
    """The WKT such a GeoTIFF declares, as GDAL writes it and as pyproj builds it (WKT2 and GDAL's WKT1)."""
    bound = pyproj.CRS.from_proj4(NULL_TOWGS84_UTM_25S)
    return {"gdal": _gdal_wkt(NULL_TOWGS84_UTM_25S), "wkt2": bound.to_wkt(), "wkt1": bound.to_wkt("WKT1_GDAL")}


@pytest.mark.parametrize("form", ["gdal", "wkt2", "wkt1"])
@pytest.mark.parametrize("listing", ["as PROJ lists", "reversed"])
def test_a_null_towgs84_grs80_utm_25s_is_sirgas_2000_whatever_order_proj_lists_the_ties(form, listing, monkeypatch):
    """SIRGAS 1995 and SIRGAS 2000 / UTM 25S tie (same projection, GRS80, both without a shift to
    WGS 84); the datum a GRS80 ellipsoid with a null TOWGS84 means today is SIRGAS 2000 (EPSG:31985),
    with or without an extent, in any order pyproj's identify() gives them."""
    from chronozarr import crs_match

    wkt = _null_towgs84_wkts()[form]
    assert pyproj.CRS.from_wkt(wkt).is_bound
    if listing == "reversed":
        original = pyproj.CRS.list_authority
        monkeypatch.setattr(pyproj.CRS, "list_authority", lambda self, *a, **k: list(reversed(original(self, *a, **k))))
    crs_match._candidates.cache_clear()
    try:
        for extent in (None, (210_000, 9_090_000, 213_000, 9_100_000)):
            found = resolve(wkt, "the CRS of dem.tif", extent)
            assert found.code == "EPSG:31985", found.note
            assert "also equivalent: EPSG:32000" in found.note and "latest datum (published 2000-" in found.note
    finally:
        crs_match._candidates.cache_clear()

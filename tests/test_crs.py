"""CRS inputs as producers write them become the EPSG code a store records; a CRS without a
code is matched against EPSG, and one with no equivalent is refused naming the closest."""

import pytest
from raster_inputs import ESRI_UTM_25S

from chronozarr.crs import Declared, epsg, override_note, resolve
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
    # Independent: the EPSG CRSs that use this zone's Transverse Mercator on GRS80.
    expected = {c for c in (32000, 31985) if pyproj.CRS.from_epsg(c).ellipsoid.name == "GRS 1980"}
    assert int(found.code.split(":")[1]) in expected
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


def test_override_note_is_silent_for_naming_and_says_real_differences():
    assert override_note(Declared(ESRI_UTM_25S, "the CRS of dem.tif"), "EPSG:31985") is None
    note = override_note(Declared("EPSG:32632", "the CRS of a.tif"), "EPSG:32631")
    assert note == (
        "--crs EPSG:32631 replaces the CRS of a.tif (WGS 84 / UTM zone 32N), which differs in longitude of natural origin (9, not 3)"
    )

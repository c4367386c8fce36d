"""CRS inputs as producers write them become the EPSG code a store records."""

import pytest

from chronozarr.crs import epsg
from chronozarr.errors import InputError

pyproj = pytest.importorskip("pyproj")


@pytest.mark.parametrize(
    "value",
    ["OGC:CRS84", "urn:ogc:def:crs:OGC:1.3:CRS84", "http://www.opengis.net/def/crs/OGC/1.3/CRS84"],
)
def test_ogc_crs84_is_recorded_as_epsg_4326(value):
    assert epsg(value, "--crs") == "EPSG:4326"


def test_crs84_as_wkt_is_recorded_as_epsg_4326():
    assert epsg(pyproj.CRS("OGC:CRS84").to_wkt(), "--crs") == "EPSG:4326"


def test_a_crs_without_an_epsg_code_is_refused_with_the_fix():
    custom = "+proj=laea +lat_0=10 +lon_0=-70 +x_0=0 +y_0=0 +ellps=GRS80 +units=m +no_defs"
    with pytest.raises(InputError, match="no EPSG code.*--crs"):
        epsg(custom, "--crs")

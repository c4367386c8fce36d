"""read_region_series against numpy statistics of the arrays the test wrote: masked, nodata and
null-nodata stores, none and star-delta, sharded and not, with the history array, over a real
HTTP server; boxes and polygons on and between pixel centres; a date without a valid pixel."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_series
from expected import pyramid

import chronozarr
from chronozarr.errors import InputError
from chronozarr.serve import StoreServer

X0, Y0, RES = 500_000.0, 5_000_000.0, 10.0
H, W, CS, N_TIME = 37, 29, 16, 5
BANDS = [
    {"name": "B04", "common_name": "red", "scale": 1e-4, "offset": -0.1},
    {"name": "B03", "common_name": "green", "scale": 1e-4, "offset": 0.0},
    {"name": "B08", "common_name": "nir", "scale": 2e-4, "offset": 0.0},
]
EMPTY_DATE = 2  # the test regions hold no valid pixel on this date
STORES = {
    "nodata-none": {"nodata": 0, "encoding": "none"},
    "nodata-star-sharded": {"nodata": 0, "encoding": "star-delta", "anchor_interval": 2, "shard": True, "shard_time": 2},
    "null-nodata": {"nodata": None, "encoding": "none"},
    "mask-star": {"mask": True, "encoding": "star-delta", "anchor_interval": 3},
    "mask-history": {"mask": True, "encoding": "none", "history": True},
    "nodata-history": {"nodata": 0, "encoding": "star-delta", "anchor_interval": 2, "history": True},
}


def _series(kind: str):
    da = make_series(n_time=N_TIME, n_band=3, height=H, width=W, seed=3, bands=[b["name"] for b in BANDS])
    values = da.values.copy()
    rng = np.random.default_rng(4)
    mask = None
    if kind.startswith("mask"):
        mask = (rng.random((N_TIME, H, W)) > 0.3).astype(np.uint8)
        mask[EMPTY_DATE] = 0
    elif kind.startswith("nodata"):
        values[rng.random(values.shape) < 0.2] = 0
        values[EMPTY_DATE] = 0
    da = da.copy(data=values)
    return da, mask


@pytest.fixture(scope="module", params=sorted(STORES))
def store(request, tmp_path_factory):
    kind = request.param
    options = dict(STORES[kind])
    da, mask = _series(kind)
    if options.pop("mask", False):
        options["mask"] = mask
    path = tmp_path_factory.mktemp(kind) / "s"
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=CS, bands=BANDS, progress=False, **options)
    nodata = options.get("nodata", None) if "mask" not in options else None
    return kind, path, da.values, mask, nodata


def _oracle(values, mask, nodata, held, level=0):
    """(time, band) statistics with numpy over the held pixels, from the level's true values."""
    n_levels = level + 1
    data, m, _ = pyramid(values, mask, None, nodata, n_levels)[level]
    scale = np.array([b["scale"] for b in BANDS])[None, :, None, None]
    offset = np.array([b["offset"] for b in BANDS])[None, :, None, None]
    phys = data.astype(np.float64) * scale + offset
    if m is not None:
        valid = np.broadcast_to((m == 1)[:, None], data.shape)
    elif nodata is not None:
        valid = data != nodata
    else:
        valid = np.ones(data.shape, dtype=bool)
    valid = valid & held[None, None]
    out = {k: np.full(data.shape[:2], np.nan) for k in ("mean", "std", "min", "max")}
    count = valid.sum(axis=(2, 3))
    for t in range(data.shape[0]):
        for b in range(data.shape[1]):
            v = phys[t, b][valid[t, b]]
            if v.size:
                out["mean"][t, b], out["std"][t, b], out["min"][t, b], out["max"][t, b] = v.mean(), v.std(), v.min(), v.max()
    return out, count


def _centres(level: int, h: int, w: int):
    res = RES * 2**level
    return X0 + (np.arange(w) + 0.5) * res, Y0 - (np.arange(h) + 0.5) * res


def _check(ds, values, mask, nodata, held, level=0):
    want, count = _oracle(values, mask, nodata, held, level)
    np.testing.assert_array_equal(ds["valid_pixels"].values, count)
    for name in ("mean", "std", "min", "max"):
        np.testing.assert_allclose(ds[name].values, want[name], rtol=1e-9, atol=1e-12, equal_nan=True)
    assert ds.attrs["level"] == level and ds.attrs["pixel_size"] == RES * 2**level


def test_a_box_with_edges_on_pixel_centres_holds_them(store):
    kind, path, values, mask, nodata = store
    xs, ys = _centres(0, H, W)
    box = (xs[3], ys[30], xs[20], ys[4])  # every edge on a centre: columns 3..20, rows 4..30
    held = (xs[None, :] >= xs[3]) & (xs[None, :] <= xs[20]) & (ys[:, None] <= ys[4]) & (ys[:, None] >= ys[30])
    with chronozarr.open_dataset(path) as s:
        ds = s.read_region_series(box)
        assert ds.attrs["source"] == ("history" if "history" in kind else "chunks")
    _check(ds, values, mask, nodata, held)
    assert (ds["valid_pixels"].values[EMPTY_DATE] == 0).all() if nodata is not None or mask is not None else True
    if nodata is not None or mask is not None:
        assert np.isnan(ds["mean"].values[EMPTY_DATE]).all()


def test_a_polygon_between_centres_with_a_hole(store):
    kind, path, values, mask, nodata = store
    xs, ys = _centres(0, H, W)
    outer = [[X0 + 12, Y0 - 7], [X0 + 268, Y0 - 7], [X0 + 268, Y0 - 344], [X0 + 12, Y0 - 344]]
    hole = [[X0 + 100, Y0 - 100], [X0 + 150, Y0 - 100], [X0 + 150, Y0 - 200], [X0 + 100, Y0 - 200]]
    px, py = xs[None, :], ys[:, None]
    held = (px >= X0 + 12) & (px <= X0 + 268) & (py <= Y0 - 7) & (py >= Y0 - 344)
    held &= ~((px > X0 + 100) & (px < X0 + 150) & (py < Y0 - 100) & (py > Y0 - 200))
    with chronozarr.open_dataset(path) as s:
        ds = s.read_region_series({"type": "Polygon", "coordinates": [outer, hole]}, lod=0)
    _check(ds, values, mask, nodata, held)


def test_a_coarser_level_gives_the_statistics_of_the_block_means(store):
    kind, path, values, mask, nodata = store
    xs, ys = _centres(1, 19, 15)
    held = (xs[None, :] >= X0 + 35) & (xs[None, :] <= X0 + 250) & (ys[:, None] <= Y0 - 15) & (ys[:, None] >= Y0 - 300)
    with chronozarr.open_dataset(path) as s:
        ds = s.read_region_series((X0 + 35, Y0 - 300, X0 + 250, Y0 - 15), lod=1)
    _check(ds, values, mask, nodata, held, level=1)
    assert ds.attrs["source"] == ("history" if kind.endswith("history") else "chunks")  # level 1's own history (format 1.3)


def test_products_are_computed_per_pixel_then_summarised(store):
    kind, path, values, mask, nodata = store
    box = (X0, Y0 - 200, X0 + 200, Y0)
    xs, ys = _centres(0, H, W)
    held = (xs[None, :] <= X0 + 200) & (ys[:, None] >= Y0 - 200)
    phys = [values[:, i].astype(np.float64) * b["scale"] + b["offset"] for i, b in enumerate(BANDS)]
    red, green, nir = phys
    if mask is not None:
        ok = np.broadcast_to(mask == 1, red.shape)
        ok_r = ok_g = ok_n = ok
    elif nodata is not None:
        ok_r, ok_g, ok_n = (values[:, i] != nodata for i in range(3))
    else:
        ok_r = ok_g = ok_n = np.ones(red.shape, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0 only where both bands are nodata
        ndvi = np.clip((nir - red) / (nir + red), -1, 1)
        ndwi = np.clip((green - nir) / (green + nir), -1, 1)
    with chronozarr.open_dataset(path) as s:
        ds = s.read_region_series(box, bands=["ndvi", "water"])
    assert list(ds["band"].values) == ["ndvi", "water"]
    for b, (v, ok) in enumerate([(ndvi, ok_n & ok_r), (ndwi > 0, ok_g & ok_n)]):
        for t in range(N_TIME):
            sel = v[t][ok[t] & held].astype(np.float64)
            assert ds["valid_pixels"].values[t, b] == sel.size
            if sel.size:
                np.testing.assert_allclose(ds["mean"].values[t, b], sel.mean(), rtol=1e-9)
                np.testing.assert_allclose(ds["std"].values[t, b], sel.std(), rtol=1e-9, atol=1e-12)
    water = (ndwi > 0) & ok_g & ok_n & held
    np.testing.assert_allclose(ds["water_km2"].values[:, 1], water.sum(axis=(1, 2)) * RES * RES / 1e6)


def test_a_point_gives_its_pixels_history(store):
    kind, path, values, mask, nodata = store
    with chronozarr.open_dataset(path) as s:
        ds = s.read_region_series({"type": "Point", "coordinates": [X0 + 57, Y0 - 123]})
    held = np.zeros((H, W), dtype=bool)
    held[12, 5] = True
    _check(ds, values, mask, nodata, held)


def test_over_http_the_numbers_are_the_same(store, tmp_path):
    kind, path, values, mask, nodata = store
    box = (X0 + 3, Y0 - 333, X0 + 222, Y0 - 44)
    with chronozarr.open_dataset(path) as s:
        local = s.read_region_series(box)
    with StoreServer(path.parent) as server, chronozarr.open_dataset(f"{server.url}/s") as s:
        remote = s.read_region_series(box)
    for name in ("mean", "std", "min", "max", "valid_pixels"):
        np.testing.assert_array_equal(remote[name].values, local[name].values)


def test_lon_lat_areas_are_reprojected_to_the_store_crs(store):
    kind, path, values, mask, nodata = store
    pyproj = pytest.importorskip("pyproj")
    to_ll = pyproj.Transformer.from_crs("EPSG:32631", "EPSG:4326", always_xy=True)
    corners = [to_ll.transform(x, y) for x, y in [(X0 + 30, Y0 - 300), (X0 + 250, Y0 - 300), (X0 + 250, Y0 - 30), (X0 + 30, Y0 - 30)]]
    with chronozarr.open_dataset(path) as s:
        ll = s.read_region_series({"type": "Polygon", "coordinates": [corners]}, crs="EPSG:4326")
        utm = s.read_region_series((X0 + 30, Y0 - 300, X0 + 250, Y0 - 30))
    # Centres sit 5 m inside every edge, far beyond the round trip's error.
    np.testing.assert_array_equal(ll["valid_pixels"].values, utm["valid_pixels"].values)
    np.testing.assert_allclose(ll["mean"].values, utm["mean"].values, equal_nan=True)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (dict(geometry=(0, 0, 10, 10)), "outside the store"),
        (dict(geometry=(X0 + 1, Y0 - 4, X0 + 4, Y0 - 1)), "no pixel centre"),
        (dict(geometry=(X0, Y0 - 50, X0 + 50, Y0), bands=["B99"]), "cannot give 'B99'"),
        (dict(geometry=(X0, Y0 - 50, X0 + 50, Y0), lod=7), "level 7 does not exist"),
        (dict(geometry=(X0, Y0 - 50, X0 + 50, Y0), crs="EPSG:999999"), "unknown CRS"),
    ],
)
def test_bad_requests_are_input_errors(store, call, words):
    kind, path, *_ = store
    call = dict(call)
    geometry = call.pop("geometry")
    with chronozarr.open_dataset(path) as s, pytest.raises(InputError, match=words):
        s.read_region_series(geometry, **call)


def test_a_work_unit_smaller_than_the_window_reads_cell_by_cell_with_the_same_numbers(store, monkeypatch):
    kind, path, values, mask, nodata = store
    from chronozarr.read import region_series

    box = (X0 + 3, Y0 - 333, X0 + 222, Y0 - 44)
    with chronozarr.open_dataset(path) as s:
        whole = s.read_region_series(box)
        monkeypatch.setattr(region_series, "WORK_BYTES", 1)  # one timestep of one cell per read
        reads = []
        real = s.read_region

        def counted(array, steps, rows, cols, lod=0):
            reads.append((array, list(steps), rows, cols))
            return real(array, steps, rows, cols, lod)

        monkeypatch.setattr(s, "read_region", counted)
        pieces = s.read_region_series(box)
    for name in ("mean", "std", "min", "max", "valid_pixels"):
        np.testing.assert_allclose(pieces[name].values, whole[name].values, rtol=1e-12, equal_nan=True)
    if "history" not in kind:
        data_reads = [r for r in reads if r[0] == "data"]
        assert all(len(steps) == 1 and r.stop - r.start <= CS and c.stop - c.start <= CS for _, steps, r, c in data_reads)
        assert len(data_reads) == N_TIME * 6  # the box's window meets 3 x 2 cells of 16 px


def test_a_bucket_store_gives_the_local_numbers(tmp_path, s3_server, aws_env):
    import uuid

    from chronozarr.publish import publish

    da, _ = _series("nodata-none")
    path = tmp_path / "s"
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=CS, bands=BANDS, nodata=0, progress=False)
    name = f"region-{uuid.uuid4().hex[:8]}"
    s3_server.create_bucket(name)
    publish(path, f"s3://{name}/s", endpoint=aws_env, echo=lambda line: None)
    box = {"type": "Polygon", "coordinates": [[[X0 + 12, Y0 - 7], [X0 + 268, Y0 - 40], [X0 + 100, Y0 - 344]]]}
    with chronozarr.open_dataset(path) as local, chronozarr.open_dataset(f"s3://{name}/s", endpoint=aws_env) as bucket:
        want, got = local.read_region_series(box, bands=["B04", "ndvi"]), bucket.read_region_series(box, bands=["B04", "ndvi"])
    for stat in ("mean", "std", "min", "max", "valid_pixels"):
        np.testing.assert_array_equal(got[stat].values, want[stat].values)


def test_with_the_history_array_an_areas_series_is_two_requests_per_shard(tmp_path):
    """A 48 x 48 box over four 32 px shards: each shard's index and one range of its inner chunks,
    which lie back to back, against one chunk per date and cell without the array."""
    n_time = 24
    da = make_series(n_time=n_time, n_band=4, height=64, width=64, seed=8)
    common = {"crs": "EPSG:32631", "chunk_size": 32, "encoding": "star-delta", "anchor_interval": 6, "progress": False}
    chronozarr.encode(da, tmp_path / "with", history=True, **common)
    chronozarr.encode(da, tmp_path / "without", **common)
    box = (X0 + 80, Y0 - 560, X0 + 560, Y0 - 80)  # centres of columns and rows 8..55, edges between centres
    v = da.values[:, :, 8:56, 8:56].astype(np.float64)
    valid = da.values[:, :, 8:56, 8:56] != 0
    counts = {}
    with StoreServer(tmp_path) as server:
        for name in ("with", "without"):
            with chronozarr.open_dataset(f"{server.url}/{name}") as s:
                server.clear_log()
                ds = s.read_region_series(box)
                counts[name] = len(server.requests)
            assert ds.attrs["source"] == ("history" if name == "with" else "chunks")
            np.testing.assert_array_equal(ds["valid_pixels"].values, valid.sum(axis=(2, 3)))
            np.testing.assert_allclose(ds["mean"].values, np.where(valid, v, 0).sum(axis=(2, 3)) / valid.sum(axis=(2, 3)), rtol=1e-12)
    assert counts == {"with": 4 * 2, "without": n_time * 4}


def test_inner_chunks_are_grouped_into_runs_only_where_they_touch(monkeypatch):
    from chronozarr.read import history

    chunks = [(0, 10, 3), (10, 5, 4), (20, 5, 7), (25, 5, 8), (30, 1, 9)]  # (offset, length, position)
    assert [[c[2] for c in run] for run in history.runs(chunks)] == [[3, 4], [7, 8, 9]]
    monkeypatch.setattr(history, "RUN_BYTES", 10)
    assert [[c[2] for c in run] for run in history.runs(chunks)] == [[3], [4], [7, 8], [9]]

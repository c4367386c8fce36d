"""The examples run end to end as a user runs them (the water-mask guide in test_examples_water.py): the SWOT
and NISAR run.sh scripts with `chronozarr` on PATH, and the leafmap notebook executed in a real
Jupyter kernel (nbclient, ipykernel)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from browser_check import needs_chromium
from nbclient import NotebookClient
from served_files import http_site  # noqa: F401  (a fixture)

import chronozarr

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(chronozarr.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}


def _run(*args: str | Path) -> str:
    run = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, env=ENV, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_leafmap_notebook_runs_in_a_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    notebook = nbformat.read(EXAMPLES / "leafmap" / "demo.ipynb", as_version=4)
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])  # the kernel inherits it
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(EXAMPLES / "leafmap")}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    widget = next(o for o in outputs if o.output_type in ("display_data", "execute_result") and "application/vnd.jupyter.widget-view+json" in o.data)
    assert widget.data["application/vnd.jupyter.widget-view+json"]["model_id"]
    texts = [o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in outputs]
    assert "200 *\n" in texts and texts[-1] == "3"


def test_notebook_widget_runs_in_a_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    import zarr

    notebook = nbformat.read(EXAMPLES / "notebook_widget" / "demo.ipynb", as_version=4)
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])  # the kernel inherits it
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(EXAMPLES / "notebook_widget")}}).execute()
    cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    outputs = [o for cell in cells for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = [[o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.outputs] for cell in cells]
    store = Path(text[0][0].strip())
    widget = next(o for o in cells[1].outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {}))
    assert widget.data["application/vnd.jupyter.widget-view+json"]["model_id"]
    # 2024-03-10 is nearest to March (timestep 2); the state says so at once
    assert text[2] == ["2 2024-03-01T00:00:00Z ndvi\n"]
    assert text[3] == ["[]"]  # no browser, no clicks
    # the pixel history against the store read by zarr-python (an encoding none store holds true values)
    b08 = zarr.open_group(store, mode="r")["0/data"][:, 3, 20, 10]
    assert text[4][0] == f"{b08.tolist()}\n"
    table = text[4][1].splitlines()  # the physical values: the band header, the time header, 6 dates
    assert table[0].split() == ["band", "B02", "B03", "B04", "B08"] and len(table) == 2 + 6
    assert [float(line.split()[4]) for line in table[2:]] == [round(v * 1e-4, 4) for v in b08.tolist()]


def _cli(*args: str | Path) -> str:
    """A chronozarr command in its own process, as a user types it."""
    return _run("-c", "import sys; from chronozarr.cli import main; sys.argv[0] = 'chronozarr'; sys.exit(main())", *args)


S2_CONVERT = ("--assets", "blue,green,red,nir", "--group-by", "day", "--grid", "EPSG:32718", "--resolution", "10",
              "--bounds", "500000,9160000,501120,9160640", "--resampling", "nearest", "--chunk-size", "64")


def _first_valid_mosaics(items_json: Path) -> tuple[list[str], np.ndarray]:
    """Each day's items merged by rasterio.merge, first valid pixel in the listed order: the oracle."""
    import rasterio
    from rasterio.merge import merge

    days: dict[str, list[dict]] = {}
    for feature in json.loads(items_json.read_text())["features"]:
        days.setdefault(feature["properties"]["datetime"][:10], []).append(feature)
    frames = []
    for features in days.values():
        bands = []
        for key in ("blue", "green", "red", "nir"):
            sources = [rasterio.open(items_json.parent / f["assets"][key]["href"]) for f in features]
            merged, _ = merge(sources, bounds=(500_000, 9_160_000, 501_120, 9_160_640), res=10, nodata=0, method="first")
            bands.append(merged[0])
            for source in sources:
                source.close()
        frames.append(np.stack(bands))
    return list(days), np.stack(frames)


def test_sentinel2_stac_items_from_disk_and_over_http(tmp_path: Path, http_site: tuple[Path, str]) -> None:  # noqa: F811
    fetch = EXAMPLES / "sentinel2_stac" / "fetch_items.py"
    assert _run(fetch, tmp_path).strip().endswith("items.json: 8 items")
    out = _cli("convert", tmp_path / "items.json", tmp_path / "store", *S2_CONVERT)
    assert "32 file(s) read exactly where they land" in out and "131072 stored as read, 0 resampled" in out
    days, expected = _first_valid_mosaics(tmp_path / "items.json")
    assert "4 from 2024-06-03T00:00:00Z to 2024-07-03T00:00:00Z, every 10 days" in _cli("info", tmp_path / "store")
    site, url = http_site
    _run(fetch, site, "--base-url", url)
    _cli("convert", f"{url}/items.json", tmp_path / "over-http", *S2_CONVERT)
    for path in (tmp_path / "store", tmp_path / "over-http"):
        assert chronozarr.validate(path).ok
        with chronozarr.open_dataset(path) as store:
            assert [str(t)[:10] for t in store.times] == days
            assert [(b.name, b.common_name, b.scale, b.offset) for b in store.bands] == [
                (k, k, 1e-4, -0.1) for k in ("blue", "green", "red", "nir")
            ]
            for t in range(len(days)):
                np.testing.assert_array_equal(store.read(t), expected[t])
                np.testing.assert_array_equal(store.read_mask(t), (expected[t] != 0).any(axis=0))
    assert (expected[1] == 0).all(axis=0).sum() == 8 * 64  # the clipped pass leaves 8 columns uncovered


def _png_rgba(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as image:
        return np.asarray(image.convert("RGBA")).transpose(2, 0, 1)


def test_png_frames_with_world_files_and_with_bounds(tmp_path: Path) -> None:
    render = EXAMPLES / "png_frames" / "render_frames.py"
    manifest = Path(_run(render, tmp_path / "frames").strip())
    _cli("convert", manifest, tmp_path / "png-1", "--crs", "EPSG:32718", "--chunk-size", "64")
    out = _run(EXAMPLES / "png_frames" / "check_store.py", tmp_path / "png-1", manifest)
    assert "6 frames bit-exact" in out and "upper-left corner 498450, 9162200; 10 m pixels" in out and out.endswith("ok\n")
    bare = Path(_run(render, tmp_path / "bare", "--sidecar", "none").strip())
    assert not list(bare.parent.glob("*.pgw"))
    _cli("convert", bare, tmp_path / "png-2", "--crs", "EPSG:32718", "--bounds", "498450,9161240,499730,9162200", "--chunk-size", "64")
    a, b, c, d, centre_x, centre_y = map(float, (tmp_path / "frames" / "2019-01.pgw").read_text().split())
    with chronozarr.open_dataset(tmp_path / "png-1") as one, chronozarr.open_dataset(tmp_path / "png-2") as two:
        assert [band.name for band in one.bands] == ["red", "green", "blue"] and one.has_mask and len(one.levels) == 2
        xs, ys = one.to_xarray(lod=0, times=[0]).x.values, one.to_xarray(lod=0, times=[0]).y.values
        assert (xs[0], ys[0], xs[1] - xs[0], ys[1] - ys[0]) == (centre_x, centre_y, a, d)
        for t, row in enumerate(manifest.read_text().splitlines()[1:]):
            frame = _png_rgba(manifest.parent / row.split(",")[0])
            np.testing.assert_array_equal(one.read(t), frame[:3])
            np.testing.assert_array_equal(one.read_mask(t), frame[3] != 0)
            np.testing.assert_array_equal(two.read(t), one.read(t))
            np.testing.assert_array_equal(two.read_mask(t), one.read_mask(t))
        np.testing.assert_array_equal(two.to_xarray(lod=0, times=[0]).x.values, xs)
        np.testing.assert_array_equal(two.to_xarray(lod=0, times=[0]).y.values, ys)


def _run_sh(script: Path, out: Path, bin_dir: Path) -> str:
    """An example's run.sh as a user runs it: `chronozarr` on PATH, PYTHON the test's interpreter."""
    bin_dir.mkdir()
    wrapper = bin_dir / "chronozarr"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "import sys; from chronozarr.cli import main; '
                       f"sys.argv[0] = 'chronozarr'; sys.exit(main())\" \"$@\"\n")
    wrapper.chmod(0o755)
    env = {**ENV, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHON": sys.executable}
    run = subprocess.run(["sh", str(script), str(out)], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_swot_raster_granules_with_their_quality_flags_as_the_mask(tmp_path: Path) -> None:
    import xarray as xr

    out = _run_sh(EXAMPLES / "swot_raster" / "run.sh", tmp_path / "swot", tmp_path / "bin")
    assert "5 granules" in out and "dated by its time_coverage_start attribute" in out and "valid (0 fail" in out
    granules = sorted((tmp_path / "swot" / "granules").glob("SWOT_L2_HR_Raster_*.nc"))
    assert len(granules) == 5
    with chronozarr.open_dataset(tmp_path / "swot" / "store") as store:
        assert store.crs == "EPSG:32718" and [b.name for b in store.bands] == ["wse", "water_frac"]
        notes = json.loads((tmp_path / "swot" / "store" / "zarr.json").read_text())["attributes"]["chronozarr"]["provenance"]["notes"]
        assert "mask from wse_qual: valid where it is 0, 1" in notes
        for t, path in enumerate(granules):  # the names sort by cycle, which is date order here
            with xr.open_dataset(path, mask_and_scale=False) as ds:  # the values as the file stores them
                assert store.times[t] == np.datetime64(ds.attrs["time_coverage_start"].rstrip("Z"), "ms")
                rows = ds["y"].values.argsort()[::-1]  # the store's row 0 is the north edge
                np.testing.assert_array_equal(store.read(t), np.stack([ds[v].values[rows] for v in ("wse", "water_frac")]))
                qual = ds["wse_qual"].values[rows]
                np.testing.assert_array_equal(store.read_mask(t), ((qual == 0) | (qual == 1)).astype(np.uint8))
                assert store.nodata == ds["wse"].attrs["_FillValue"]


def test_nisar_gcov_products_read_from_their_hdf5_groups(tmp_path: Path) -> None:
    import h5py

    out = _run_sh(EXAMPLES / "nisar_gcov" / "run.sh", tmp_path / "nisar", tmp_path / "bin")
    assert "4 granules" in out and "zeroDopplerStartTime variable" in out and "valid (0 fail" in out
    products = sorted((tmp_path / "nisar" / "products").glob("NISAR_L2_PR_GCOV_*.h5"))
    with chronozarr.open_dataset(tmp_path / "nisar" / "store") as store:
        assert store.crs == "EPSG:32615" and [b.name for b in store.bands] == ["HHHH", "HVHV"]
        for t, path in enumerate(products):
            with h5py.File(path, "r") as f:
                start = f["/science/LSAR/identification/zeroDopplerStartTime"][()].decode()
                images = np.stack([f[f"/science/LSAR/GCOV/grids/frequencyA/{k}"][()] for k in ("HHHH", "HVHV")])
                assert f["/science/LSAR/GCOV/grids/frequencyA/yCoordinates"][0] > f["/science/LSAR/GCOV/grids/frequencyA/yCoordinates"][1]
            assert store.times[t] == np.datetime64(start, "ms")
            valid = ~np.isnan(images).any(axis=0)
            assert 0 < (~valid).sum() < valid.sum()  # the products hold fill to mask
            np.testing.assert_array_equal(store.read_mask(t), valid.astype(np.uint8))
            np.testing.assert_array_equal(store.read(t)[:, valid], images[:, valid])
            assert (store.read(t)[:, ~valid] == 0).all()  # NaN is never stored


@needs_chromium
def test_png_frames_worked_example_end_to_end_and_in_the_viewer(tmp_path: Path) -> None:
    """convert.sh as the guide runs it: frames, convert, validate, bit-exact check, and the headless
    viewer; the pixels it clicked read back what the PNG holds there, read through Pillow."""
    script = EXAMPLES / "png_frames" / "convert.sh"
    run = subprocess.run(["bash", str(script), str(tmp_path)], capture_output=True, text=True, timeout=300,
                         env={**ENV, "CHRONOZARR_PYTHON": sys.executable})
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert "valid (0 fail" in run.stdout and "6 frames bit-exact" in run.stdout and lines[-1] == "ok"
    viewer = json.loads(lines[-2])
    assert viewer["t"] == 1 and viewer["products"] == {"true_color": True, "false_color": False, "ndvi": False, "ndwi": False,
                                                       "water": False, "band": True}
    frame = _png_rgba(tmp_path / "frames" / "2019-02.png")
    clicked = {(p["x"], p["y"]): p for p in viewer["pixels"]}
    assert sorted(clicked) == [(10, 10), (50, 50), (90, 20), (100, 30)]
    for (x, y), p in clicked.items():
        assert p["stored"] == frame[:3, y, x].tolist() and p["valid"] == bool(frame[3, y, x] != 0)
        assert p["drawn"] == (frame[:3, y, x].tolist() if p["valid"] else [9, 12, 18])
    assert [p["valid"] for p in viewer["pixels"]] == [True, True, False, False]  # two under the cloud

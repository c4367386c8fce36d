"""The water-mask guide run as a user runs it: sentinel2_monthly's recorded items, `convert
--composite month`, build_water_stack.py, validate, check_water_stack.py for each month, against a
month-by-month Otsu written here with numpy's histogram, and viewer_check.mjs in Chromium."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import zarr
from browser_check import JS, needs_chromium
from test_examples import ENV, EXAMPLES, _cli, _run

import chronozarr


@pytest.fixture(scope="module")
def water(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The composite store and the water store built from it (the README's steps)."""
    work = tmp_path_factory.mktemp("water")
    _run(EXAMPLES / "sentinel2_monthly" / "fetch_items.py", work / "s2m")
    _cli("convert", work / "s2m" / "items.json", work / "s2m" / "store", "--assets", "blue,green,red,nir", "--valid", "scl:4,5,6,7,11",
         "--composite", "month", "--reducer", "median", "--gap-fill", "carry-forward", "--chunk-size", "64")
    out = _run(EXAMPLES / "water_masks" / "build_water_stack.py", work / "s2m" / "store", work / "water")
    assert out.strip() == str(work / "water")
    assert "valid" in _cli("validate", work / "water")
    return work / "s2m" / "store", work / "water"


def _otsu(values: np.ndarray) -> tuple[int, float]:
    """Otsu over one bin per stored integer: split k keeps values <= k in class one; the best
    between-class variance, the middle of a tie, and eta = that variance over the total."""
    counts, edges = np.histogram(values, bins=np.arange(values.min(), values.max() + 2))
    levels = edges[:-1].astype(np.float64)
    total = counts.sum()
    w0 = np.cumsum(counts)[:-1]
    w1 = total - w0
    m0 = np.cumsum(counts * levels)[:-1] / np.maximum(w0, 1)
    m1 = ((counts * levels).sum() - np.cumsum(counts * levels)[:-1]) / np.maximum(w1, 1)
    scores = np.where((w0 > 0) & (w1 > 0), w0 * w1 * (m0 - m1) ** 2 / total**2, -1.0)
    best = np.flatnonzero(scores == scores.max())
    return int(levels[(best[0] + best[-1]) // 2]), float(scores.max() / values.astype(np.float64).var())


def test_each_month_matches_an_otsu_written_here(water: tuple[Path, Path]) -> None:
    composite, out = water
    attrs = json.loads((composite / "zarr.json").read_text())["attributes"]["chronozarr"]
    bands = {b["name"]: (i, b["scale"], b["offset"]) for i, b in enumerate(attrs["bands"])}
    level0 = zarr.open_group(str(composite / "0"), mode="r")
    rows = list(csv.DictReader(open(f"{out}.months.csv")))
    assert list(rows[0]) == ["month", "valid_px", "valid_frac", "dark_frac", "otsu_threshold", "threshold", "floored", "eta",
                             "water_frac", "water_frac_otsu", "water_km2", "blue_median_dn"]
    assert [r["month"] for r in rows] == [t[:7] for t in attrs["times"]]
    with chronozarr.open_dataset(out) as store:
        assert [(b.name, b.scale, b.units) for b in store.bands] == [("ndwi", 1e-4, "index"), ("water", 1e-4, "fraction")]
        for t, row in enumerate(rows):
            raw = np.asarray(level0["data"][t]).astype(np.float64)
            assert all(bands[k][1:] == (1e-4, -0.1) for k in bands)  # baseline 04.00: reflectance x 10000 = DN - 1000
            g, n = (raw[bands[k][0]] - 1000 for k in ("green", "nir"))
            observed = (np.asarray(level0["mask"][t]) == 1) & (np.asarray(level0["coverage"][t]) > 0)
            ndwi = np.rint((g - n) / (g + n) * 10000).astype(np.int64)
            raw_otsu, eta = _otsu(ndwi[observed])
            threshold = max(raw_otsu, 0)  # the default floor, 0.0
            assert float(row["otsu_threshold"]) == raw_otsu / 1e4 and float(row["threshold"]) == threshold / 1e4
            assert int(row["floored"]) == int(raw_otsu < 0) and abs(float(row["eta"]) - eta) < 1e-4
            wet = observed & (ndwi > threshold)
            assert int(row["valid_px"]) == observed.sum() and float(row["water_frac"]) == round(wet.sum() / observed.sum(), 6)
            assert float(row["water_frac_otsu"]) == round((observed & (ndwi > raw_otsu)).sum() / observed.sum(), 6)
            assert float(row["water_km2"]) == round(wet.sum() * 100 / 1e6, 4)
            assert float(row["blue_median_dn"]) == np.median(raw[bands["blue"][0]][observed] - 1000)
            np.testing.assert_array_equal(store.read(t), np.stack([np.where(observed, ndwi, 0), np.where(wet, 10000, 0)]))
            np.testing.assert_array_equal(store.read_mask(t), observed.astype(np.uint8))
    feb = rows[3]  # February 2022: 1536 pixels carried forward from January are no observation of February
    assert feb["month"] == "2022-02" and int(feb["valid_px"]) == 96 * 128 - 1536


def test_check_water_stack_passes_for_one_month_and_for_every_month(water: tuple[Path, Path]) -> None:
    _, out = water
    printed = _run(EXAMPLES / "water_masks" / "check_water_stack.py", out, "--month", "2022-02")
    assert "2022-02: threshold 0, 10752 valid px" in printed and "level 1 water is the block mean" in printed
    assert printed.rstrip().endswith("ok")
    printed = _run(EXAMPLES / "water_masks" / "check_water_stack.py", out)
    for month in ("2021-11", "2021-12", "2022-01", "2022-02", "2022-03", "2022-04"):
        assert f"{month}: threshold 0," in printed and f"{month}: level 1 water is the block mean" in printed
    assert printed.rstrip().endswith("ok")


@needs_chromium
def test_viewer_check_reads_the_clicked_pixels_back(water: tuple[Path, Path], tmp_path: Path) -> None:
    _, out = water
    _run(EXAMPLES / "water_masks" / "check_water_stack.py", out, "--month", "2022-02", "--picks", tmp_path / "picks.json")
    picks = json.loads((tmp_path / "picks.json").read_text())
    with chronozarr.open_dataset(out) as store:  # the picks are what they say, by the reader too
        for name, pick in picks["pixels"].items():
            assert list(store.read_pixel(3, pick["y"], pick["x"], lod=pick["lod"])) == pick["stored"], name
    assert picks["pixels"]["water"]["stored"][1] == 10000 and picks["pixels"]["land"]["stored"][1] == 0
    assert 0 < picks["pixels"]["coarse"]["stored"][1] < 10000
    env = {**ENV, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    run = subprocess.run(["node", str(EXAMPLES / "water_masks" / "viewer_check.mjs"), str(out), str(tmp_path / "picks.json")],
                         cwd=JS, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert "ok   products enabled: band" in lines and "ok   band selector offers ndwi, water" in lines
    assert any(line.startswith("ok   coarse: the inspector (Level 1 (2× coarser))") for line in lines) and lines[-1] == "ok"


def test_a_store_that_was_not_harmonised_and_dark_pixels(water: tuple[Path, Path], tmp_path: Path) -> None:
    """The composite moved back to offset 0 before 2022-02 and left with the +1000 DN after it (a
    store nobody harmonised), and a patch of November at the DN floor: --boa-offset-from 2022-02
    gives the harmonised store's ndwi and water, and the patch is water without entering Otsu."""
    composite, harmonised = water
    with chronozarr.open_dataset(composite) as store:
        da = store.to_xarray()
        mask, coverage = da.mask.values, np.stack([store.read_coverage(t) for t in range(len(store.times))])
        bands = [{"name": b.name, "common_name": b.common_name, "scale": b.scale, "offset": 0.0} for b in store.bands]
    raw = da.values.astype(np.int64)
    raw[:3] = np.where(mask[:3, None] == 1, np.maximum(raw[:3] - 1000, 1), 0)  # the old baseline before 2022-02
    raw[0, 1:, 10:20, 10:20] = 1  # green, red, nir at the L2A floor
    old = tmp_path / "old"
    chronozarr.encode(da.copy(data=raw.astype(np.uint16)).drop_vars("mask"), old, crs="EPSG:32718", chunk_size=64, bands=bands,
                      mask=mask, coverage=coverage, nodata=0, progress=False)
    _run(EXAMPLES / "water_masks" / "build_water_stack.py", old, tmp_path / "water", "--boa-offset-from", "2022-02")
    rows = list(csv.DictReader(open(tmp_path / "water.months.csv")))
    assert float(rows[0]["dark_frac"]) == round(100 / 96 / 128, 6) and all(float(r["dark_frac"]) == 0 for r in rows[1:])
    with chronozarr.open_dataset(tmp_path / "water") as got, chronozarr.open_dataset(harmonised) as want:
        for t in range(6):
            expected = want.read(t)
            if t == 0:
                expected[1, 10:20, 10:20] = 10000
                patch = np.asarray(got.read(0))[0, 10:20, 10:20]
                assert np.all(patch == 0), "ndwi of two floor values is 0"
                expected[0, 10:20, 10:20] = 0
            np.testing.assert_array_equal(got.read(t), expected, err_msg=f"timestep {t}")
    printed = _run(EXAMPLES / "water_masks" / "check_water_stack.py", tmp_path / "water", "--boa-offset-from", "2022-02", "--month", "2021-11")
    assert "100 dark" in printed and printed.rstrip().endswith("ok")
    refused = subprocess.run([sys.executable, str(EXAMPLES / "water_masks" / "build_water_stack.py"), str(composite), str(tmp_path / "w2"),
                              "--boa-offset-from", "2022-02"], env=ENV, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "already has a band offset" in refused.stderr and "Traceback" not in refused.stderr


def test_blocks_smaller_than_the_grid_give_the_same_store(water: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read and derived 40 x 40 pixels at a time (partial blocks at the edges): the store and CSV
    the whole-grid block gave, which the Otsu test checked against numpy."""
    composite, whole = water
    monkeypatch.syspath_prepend(str(EXAMPLES / "water_masks"))
    import build_water_stack

    monkeypatch.setattr(build_water_stack, "BLOCK", 40)
    build_water_stack.build(composite, tmp_path / "water")
    assert (tmp_path / "water.months.csv").read_text() == Path(f"{whole}.months.csv").read_text()
    with chronozarr.open_dataset(tmp_path / "water") as got, chronozarr.open_dataset(whole) as want:
        for t in range(6):
            for lod in (0, 1):
                np.testing.assert_array_equal(got.read(t, lod=lod), want.read(t, lod=lod))
                np.testing.assert_array_equal(got.read_mask(t, lod=lod), want.read_mask(t, lod=lod))
                np.testing.assert_array_equal(got.read_coverage(t, lod=lod), want.read_coverage(t, lod=lod))

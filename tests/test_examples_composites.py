"""The composite examples run as their READMEs say: recorded STAC answers (Sentinel-2 with SCL
at 20 m and two processing baselines; Landsat C2 with QA_PIXEL bits) made into monthly stores,
each value checked against numpy on the COGs the recorded answer points at."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import rasterio

import chronozarr
from chronozarr.cli import app

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
QA_REFUSED = (0, 1, 2, 3, 4, 5)  # fill, dilated cloud, cirrus, cloud, shadow, snow


def _script(path: Path, *args: str | Path) -> str:
    run = subprocess.run([sys.executable, str(path), *map(str, args)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout


def _readme_lines(example: str) -> list[str]:
    """The period and note lines the example's README shows `convert` printing."""
    text = (EXAMPLES / example / "README.md").read_text()
    return [line for line in text.splitlines() if line.startswith(("  20", "note: ", "periods written"))]


def _cli(capsys, *args: str | Path) -> str:
    try:
        app([str(a) for a in args], prog_name="chronozarr", standalone_mode=False)
    except SystemExit as exc:
        assert not exc.code, capsys.readouterr()
    return capsys.readouterr().out


def test_sentinel2_monthly_median_equals_numpy_on_the_scenes(tmp_path: Path, capsys) -> None:
    assert _script(EXAMPLES / "sentinel2_monthly" / "fetch_items.py", tmp_path).strip().endswith("items.json: 34 items")
    out = _cli(capsys, "convert", tmp_path / "items.json", tmp_path / "store", "--assets", "blue,green,red,nir",
               "--valid", "scl:4,5,6,7,11", "--composite", "month", "--reducer", "median", "--gap-fill", "carry-forward",
               "--chunk-size", "64", "--no-progress")
    assert "2022-02-01  5 scene(s)" in out and "1536 gap-filled" in out
    assert _readme_lines("sentinel2_monthly") == [line for line in out.splitlines() if line.startswith(("  20", "note: ", "periods"))]
    assert "16 scene(s) before baseline 04.00 shifted by +1000 DN" in out and "nearest neighbour" in out
    assert chronozarr.validate(tmp_path / "store").ok
    checked = _script(EXAMPLES / "sentinel2_monthly" / "check_store.py", tmp_path / "items.json", tmp_path / "store")
    assert checked.count("median exact") == 6 and "2022-02: 10752 pixels observed, 1536 carried forward" in checked
    with chronozarr.open_dataset(tmp_path / "store") as store:
        assert all((b.scale, b.offset) == (1e-4, -0.1) for b in store.bands)
        provenance = store.root_attrs["chronozarr"]["provenance"]
        assert provenance["composite"] == "monthly median" and provenance["gap_fill"] == "carry-forward"
        assert "sentinel-2-l2a" in json.dumps(provenance["sources"]) and "+1000 DN" in provenance["notes"]


def _qa_valid(qa: np.ndarray) -> np.ndarray:
    refused = np.zeros(qa.shape, dtype=bool)
    for bit in QA_REFUSED:
        refused |= (qa >> bit) & 1 == 1
    return ~refused


def _medoids(items: Path, bands: tuple[str, ...]) -> tuple[list[str], list[np.ndarray], list[np.ndarray]]:
    """Per month: the valid observation nearest the per-band float64 median (first on a tie), and
    the count of valid observations; written from the COGs with numpy only."""
    months: dict[str, list[dict]] = {}
    for item in json.loads(items.read_text())["features"]:
        months.setdefault(item["properties"]["datetime"][:7], []).append(item)
    labels, composites, counts = [], [], []
    for month, group in sorted(months.items()):
        values, valid = [], []
        for item in group:
            stack = []
            for key in (*bands, "qa_pixel"):
                with rasterio.open(items.parent / item["assets"][key]["href"]) as dataset:
                    stack.append(dataset.read(1))
            values.append(np.stack(stack[:-1]).astype(np.float64))
            valid.append(_qa_valid(stack[-1]) & (np.stack(stack[:-1]) != 0).all(axis=0))
        v, ok = np.stack(values), np.stack(valid)
        masked = np.where(ok[:, None], v, np.nan)
        with np.errstate(all="ignore"):
            median = np.nanmedian(masked, axis=0)
        distance = np.where(ok, ((v - median[None]) ** 2).sum(axis=1), np.inf)
        pick = distance.argmin(axis=0)
        chosen = np.take_along_axis(v, pick[None, None], axis=0)[0]
        labels.append(month)
        composites.append(np.where(ok.any(axis=0), chosen, 0).astype(np.uint16))
        counts.append(ok.sum(axis=0))
    return labels, composites, counts


def test_landsat_c2_monthly_medoid_equals_numpy_on_the_scenes(tmp_path: Path, capsys) -> None:
    bands = ("blue", "green", "red", "nir08")
    assert _script(EXAMPLES / "landsat_c2" / "fetch_items.py", tmp_path).strip().endswith("items.json: 23 items")
    out = _cli(capsys, "convert", tmp_path / "items.json", tmp_path / "store", "--assets", ",".join(bands),
               "--mask-bits", "qa_pixel:fill,dilated,cirrus,cloud,shadow,snow", "--composite", "month", "--reducer", "medoid",
               "--chunk-size", "64", "--no-progress")
    assert "qa_pixel bits fill,dilated,cirrus,cloud,shadow,snow refused" in out
    assert _readme_lines("landsat_c2") == [line for line in out.splitlines() if line.startswith(("  20", "note: ", "periods"))]
    labels, composites, counts = _medoids(tmp_path / "items.json", bands)
    with chronozarr.open_dataset(tmp_path / "store") as store:
        assert [str(t)[:7] for t in store.times] == labels
        assert [(b.name, b.common_name, b.scale, b.offset) for b in store.bands][-1] == ("nir08", "nir", 2.75e-05, -0.2)
        for t in range(len(labels)):
            mask = store.read_mask(t) == 1
            np.testing.assert_array_equal(mask, counts[t] > 0)
            np.testing.assert_array_equal(store.read_coverage(t), np.minimum(counts[t], 255))
            np.testing.assert_array_equal(store.read(t)[:, mask], composites[t][:, mask])

"""Composites of scenes that are not on this disk: COGs over HTTP (`chronozarr serve` in its own
process) and in an S3 bucket (moto's server, read through GDAL's /vsis3/). Every file is opened
remotely, every read is a block's window (never a whole frame), and the store equals numpy's
composite of the same arrays (tests/composite_scenes.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import served_files
import test_stac_items
from composite_scenes import expected_composite, make_scenes, write_items

import chronozarr
from chronozarr.convert import convert

http_site = served_files.http_site  # fixtures: a folder served over HTTP, a bucket of moto's S3
s3_bucket = test_stac_items.s3_bucket

DATES = ["2024-01-03T10:00:00Z", "2024-01-13T10:00:00Z", "2024-02-02T10:00:00Z"]
OPTIONS = {"assets": ["B04", "B08"], "valid": ["scl:4,5,6,7,11"], "composite": "month", "reducer": "median",
           "gap_fill": "carry-forward", "chunk_size": 8, "block_size": 2, "progress": False, "encoding": "none"}
WHOLE = (0, 0, 18, 20)  # the writer's resume digest reads up to 64 x 64 px: here the whole small grid


def _recorded(monkeypatch) -> list[tuple[str, tuple]]:
    from chronozarr.inputs import frames

    reads = []
    original = frames.OpenFiles.read

    def counted(self, uri, indexes, box):
        reads.append((uri, box))
        return original(self, uri, indexes, box)

    monkeypatch.setattr(frames.OpenFiles, "read", counted)
    return reads


def _check(out: Path, scenes, reads: list[tuple[str, tuple]], prefix: str) -> None:
    want = expected_composite([scenes[:2], scenes[2:]], "median", carry=True)
    with chronozarr.open_dataset(out) as store:
        got = tuple(np.stack([read(t) for t in range(2)]) for read in (store.read, store.read_mask, store.read_coverage))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert reads and all(uri.startswith(prefix) for uri, _ in reads), {uri for uri, _ in reads}
    blocks = [box for _, box in reads if max(box[2], box[3]) <= 16]  # 2 x 2 cells of 8 px
    assert blocks and {box for _, box in reads} - set(blocks) <= {WHOLE}
    assert any(uri.endswith("_scl.tif") for uri, _ in reads)  # the masks are read remotely too


def test_scenes_over_http_are_read_window_by_window(tmp_path: Path, http_site, monkeypatch) -> None:
    site, url = http_site
    scenes = make_scenes(DATES, seed=101, cloudy=0.7)
    write_items(site, scenes)  # hrefs relative to the collection's URL
    reads = _recorded(monkeypatch)
    convert(f"{url}/items.json", tmp_path / "out", **OPTIONS)
    _check(tmp_path / "out", scenes, reads, "/vsicurl/")


def test_scenes_in_a_bucket_are_read_through_vsis3_window_by_window(tmp_path: Path, s3_bucket, monkeypatch) -> None:
    scenes = make_scenes(DATES, seed=102, cloudy=0.7)
    items = write_items(tmp_path, scenes)
    collection = json.loads(items.read_text())
    for feature in collection["features"]:
        for asset in feature["assets"].values():
            s3_bucket.upload_file(str(tmp_path / asset["href"]), "scenes", f"l2a/{asset['href']}")
            asset["href"] = f"s3://scenes/l2a/{asset['href']}"
    items.write_text(json.dumps(collection))
    reads = _recorded(monkeypatch)
    convert(items, tmp_path / "out", **OPTIONS)
    _check(tmp_path / "out", scenes, reads, "/vsis3/")

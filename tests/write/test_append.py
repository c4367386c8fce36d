"""append (spec 14): 1, then 1, then 5 timesteps onto unsharded and sharded stores, none and
star-delta; after each append the store validates, decodes equal to its source and to a fresh
encode at every level, and exactly the objects spec 14 lists changed on disk."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from typer.testing import CliRunner

import chronozarr
import chronozarr.write.units as units
from chronozarr.cli import app
from chronozarr.errors import InputError
from conftest import make_series
from expected import references_for, volatility as expected_volatility
from append_helpers import assert_matches_fresh, file_hashes, section14_objects
from source_inputs import cf_encoded, write

CRS = "EPSG:32631"
BATCHES = ((5, 6), (6, 7), (7, 12))  # the store starts with 5 timesteps
LAYOUTS = {
    "unsharded": {},
    "shard_time_4": {"shard": True, "shard_time": 4},
    "whole_axis": {"shard": True, "shard_time": 5},  # shard_time = n_time at creation
}


def _options(encoding: str, layout: str) -> dict:
    interval = {"anchor_interval": 3} if encoding == "star-delta" else {}  # none: the nominal 6 of spec 5
    return {"crs": CRS, "encoding": encoding, "chunk_size": 16, **interval, **LAYOUTS[layout]}


def _planes(full: xr.DataArray) -> tuple[xr.DataArray, xr.DataArray]:
    rng = np.random.default_rng(7)
    mask = xr.DataArray(rng.integers(0, 2, full.shape[:1] + full.shape[2:], dtype=np.uint8), dims=("time", "y", "x"))
    coverage = xr.DataArray(rng.integers(0, 9, mask.shape, dtype=np.uint8), dims=("time", "y", "x"))
    return mask, coverage


def _expected_references(interval: int) -> dict[int, int]:
    """References spec 4.2 and 14 call for: the first 5 timesteps name their nearest anchor below 5;
    each batch's new timesteps the nearest anchor that exists after that append (ties earlier), and
    entries written earlier stay as they were. From tests/expected, which does not import chronozarr."""
    refs = references_for(5, interval)
    for start, stop in BATCHES:
        after = references_for(stop, interval)
        refs.update({t: after[t] for t in range(start, stop) if t in after})
    return refs


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("encoding", ["none", "star-delta"])
def test_append_one_one_five(tmp_path: Path, encoding: str, layout: str) -> None:
    full = make_series(n_time=12, n_band=2, height=37, width=29, seed=3)
    store = tmp_path / "store"
    options = _options(encoding, layout)
    chronozarr.encode(full[:5], store, **options)
    for start, stop in BATCHES:
        before = file_hashes(store)
        summary = chronozarr.append(store, full[start:stop])
        after = file_hashes(store)
        changed = {k for k in after if before.get(k) != after[k]}
        required, optional = section14_objects(store, start, stop)
        assert required <= changed, sorted(required - changed)
        assert changed <= required | optional, sorted(changed - required - optional)
        assert set(before) <= set(after), "an append never removes an object"
        assert {o.key for o in summary.objects} == changed
        for o in summary.objects:
            kind = "metadata" if o.key.endswith("zarr.json") or "/time/" in o.key or o.key.startswith("volatility") else (
                "rewritten" if o.key in before else "new"
            )
            assert o.kind == kind, o
            assert o.nbytes == (store / o.key).stat().st_size
        assert summary.added == stop - start and summary.n_time == stop
        report = chronozarr.validate(store)
        assert report.ok, str(report)
        assert_matches_fresh(store, full, stop, tmp_path / f"fresh{stop}", **options)
    with chronozarr.open_dataset(store) as s:
        if encoding == "star-delta":
            assert s.temporal.anchor_indices == (0, 3, 6, 9)
            assert dict(s.temporal.delta_reference) == _expected_references(3)
        _check_volatility(store, full, encoding)


def _check_volatility(store: Path, full: xr.DataArray, encoding: str) -> None:
    """Spec 5 over every recorded reference (the nominal interval-6 schedule under none), computed
    by tests/expected on the source values, cell by cell of the level-0 grid."""
    import zarr

    with chronozarr.open_dataset(store) as s:
        refs = dict(s.temporal.delta_reference) if encoding == "star-delta" else _expected_references(6)
    stored = zarr.open_array(store / "volatility", mode="r")[:]
    want = expected_volatility(full.values, refs, _options(encoding, "unsharded")["chunk_size"])
    assert stored.shape == want.shape
    np.testing.assert_allclose(stored, want, rtol=1e-5, atol=0)


def test_mask_and_coverage_grow_with_the_data(tmp_path: Path) -> None:
    full = make_series(n_time=9, n_band=2, height=37, width=29, seed=5)
    mask, coverage = _planes(full)
    store = tmp_path / "store"
    options = _options("star-delta", "shard_time_4")
    chronozarr.encode(full[:5], store, mask=mask[:5], coverage=coverage[:5], **options)
    before = file_hashes(store)
    chronozarr.append(store, full[5:9], mask=mask[5:9], coverage=coverage[5:9])
    after = file_hashes(store)
    required, optional = section14_objects(store, 5, 9)
    changed = {k for k in after if before.get(k) != after[k]}
    assert required <= changed <= required | optional
    assert chronozarr.validate(store).ok
    assert_matches_fresh(store, full, 9, tmp_path / "fresh", mask=mask, coverage=coverage, **options)


def test_shard_boundary_crossed_mid_batch(tmp_path: Path) -> None:
    """Timesteps 5..10 fill shard 1 (rewritten, old chunks kept at their offsets) and open shard 2."""
    full = make_series(n_time=11, n_band=1, height=20, width=20, seed=9)
    store = tmp_path / "store"
    chronozarr.encode(full[:5], store, **_options("none", "shard_time_4"))
    key0, key1, key2 = (f"0/data/c/{i}/0/0/0" for i in range(3))
    shard0, shard1 = (store / key0).read_bytes(), (store / key1).read_bytes()
    summary = chronozarr.append(store, full[5:11])
    kinds = {o.key: o.kind for o in summary.objects}
    assert key0 not in kinds and (store / key0).read_bytes() == shard0
    assert kinds[key1] == "rewritten" and kinds[key2] == "new"
    grown = (store / key1).read_bytes()
    chunk_bytes = len(shard1) - (16 * 4 + 4)
    assert grown[:chunk_bytes] == shard1[:chunk_bytes], "old chunks keep their bytes and offsets"
    assert chronozarr.validate(store).ok
    assert_matches_fresh(store, full, 11, tmp_path / "fresh", **_options("none", "shard_time_4"))


def test_levels_built_over_several_phases_read_the_extended_trailing_shard(tmp_path: Path, monkeypatch) -> None:
    """Blocks of 2 x 2 cells: the upper levels are built in later phases from the level below in
    staging, where the trailing time shard (timestep 4, an anchor) was extended with 5..7; reading
    that anchor from the store's shard first must not hide the new timesteps (they read as fill)."""
    monkeypatch.setattr(units, "BLOCK_BYTES", 16 * 16 * 2 * 2 * 4)
    full = make_series(n_time=9, n_band=2, height=70, width=70, seed=3)
    options = {"crs": CRS, "encoding": "star-delta", "anchor_interval": 2, "chunk_size": 16, "shard": True, "shard_time": 4}
    store = tmp_path / "store"
    chronozarr.encode(full[:5], store, progress=False, **options)
    chronozarr.append(store, full[5:9], progress=False)
    with chronozarr.open_dataset(store) as opened:
        assert len(opened.levels) == 4
    assert_matches_fresh(store, full, 9, tmp_path / "fresh", progress=False, **options)


@pytest.fixture
def small_store(tmp_path: Path) -> tuple[Path, xr.DataArray]:
    full = make_series(n_time=4, n_band=2, height=20, width=20, seed=1)
    store = tmp_path / "store"
    chronozarr.encode(full[:3], store, crs=CRS, chunk_size=16)
    return store, full


def _expect_refusal(store: Path, da: xr.DataArray, match: str, **kwargs) -> None:
    before = file_hashes(store)
    with pytest.raises(InputError, match=match):
        chronozarr.append(store, da, **kwargs)
    assert file_hashes(store) == before, "a refused append leaves the store untouched"


def test_mask_presence_must_match(tmp_path: Path, small_store) -> None:
    store, full = small_store
    mask, coverage = _planes(full)
    _expect_refusal(store, full[3:], r"mask .*the store has absent, the input has present", mask=mask[3:])
    _expect_refusal(store, full[3:], r"coverage .*the store has absent, the input has present", coverage=coverage[3:])
    masked = tmp_path / "masked"
    chronozarr.encode(full[:3], masked, crs=CRS, chunk_size=16, mask=mask[:3], coverage=coverage[:3])
    _expect_refusal(masked, full[3:], r"mask .*the store has present, the input has absent", coverage=coverage[3:])
    _expect_refusal(masked, full[3:], r"coverage .*the store has present, the input has absent", mask=mask[3:])


def _shifted(da: xr.DataArray, dx: float) -> xr.DataArray:
    return da.assign_coords(x=da["x"] + dx)


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda da: da.astype("int16"), r"dtype differs.*uint16.*int16"),
        (lambda da: da.isel(y=slice(0, 18)), r"grid \(height, width\) differs.*\(20, 20\).*\(18, 20\)"),
        (lambda da: _shifted(da, 5.0), r"transform differs"),
        (lambda da: da.assign_coords(band=["x0", "x1"]), r"bands differs.*\['b0', 'b1'\].*\['x0', 'x1'\]"),
        (lambda da: da.isel(band=[0]), r"band count differs.*2.*1"),
        (lambda da: da.assign_attrs(crs="EPSG:32632"), r"crs differs.*EPSG:32631.*EPSG:32632"),
        (lambda da: da.assign_attrs(nodata=7), r"nodata differs.*0.*7"),
        (lambda da: da.assign_coords(time=[np.datetime64("2024-02-01", "ns")]), r"time: .*strictly after.*2024-03-01"),
    ],
    ids=["dtype", "grid", "transform", "bands", "band_count", "crs", "nodata", "time"],
)
def test_mismatch_names_field_and_values(small_store, change, match) -> None:
    store, full = small_store
    _expect_refusal(store, change(full[3:]), match)


def test_dry_run_writes_nothing_and_lists_the_objects(small_store) -> None:
    store, full = small_store
    before = file_hashes(store)
    planned = chronozarr.append(store, full[3:], dry_run=True)
    assert file_hashes(store) == before
    done = chronozarr.append(store, full[3:])
    assert {o.key for o in done.objects} <= {o.key for o in planned.objects}
    assert {(o.key, o.kind) for o in done.objects} <= {(o.key, o.kind) for o in planned.objects}


def test_cli_append_and_dry_run(tmp_path: Path, small_store) -> None:
    store, full = small_store
    source = tmp_path / "new.zarr"
    full[3:].to_dataset(name="data").to_zarr(source, zarr_format=3, consolidated=False)
    runner = CliRunner()
    before = file_hashes(store)
    dry = runner.invoke(app, ["append", str(store), str(source), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "new        0/data/c/3/0/0/0" in dry.output and "metadata   zarr.json" in dry.output
    assert file_hashes(store) == before
    done = runner.invoke(app, ["append", str(store), str(source)])
    assert done.exit_code == 0, done.output
    assert "+1 timesteps (4 now)" in done.output and "new," in done.output
    again = runner.invoke(app, ["append", str(store), str(source)])
    assert again.exit_code == 2 and "strictly after" in again.output
    assert chronozarr.validate(store).ok
    help_text = runner.invoke(app, ["append", "--help"]).output
    assert "chronozarr append my_store" in help_text and "--dry-run" in help_text


def test_cli_append_keeps_cf_packing_and_refuses_another(tmp_path: Path) -> None:
    """A packed input appends as stored when its scale and offset are the store's, never otherwise:
    the same integers would decode to other physical values."""
    ds, raw = cf_encoded()
    runner = CliRunner()
    store = tmp_path / "store"
    created = runner.invoke(app, ["encode", str(write(ds.isel(time=[0, 1]), tmp_path / "first.nc")), str(store), "--chunk-size", "8"])
    assert created.exit_code == 0, created.output
    rescaled = ds.isel(time=[2])
    rescaled["sst"].attrs["scale_factor"] = 0.02
    refused = runner.invoke(app, ["append", str(store), str(write(rescaled, tmp_path / "rescaled.nc"))])
    assert refused.exit_code == 2 and "band (name, scale, offset) differs" in refused.output
    done = runner.invoke(app, ["append", str(store), str(write(ds.isel(time=[2]), tmp_path / "next.nc"))])
    assert done.exit_code == 0, done.output
    with chronozarr.open_dataset(store) as appended:
        np.testing.assert_array_equal(appended.read(2)[0], raw["sst"][2])
    assert chronozarr.validate(store).ok


def test_append_into_a_read_only_store_is_one_line_exit_2_and_the_store_intact(tmp_path):
    """The store on a read-only file system (a bind mount remounted read-only in a namespace of
    its own), appended to as a user runs the command."""
    import subprocess
    import sys

    da = make_series(n_time=4, height=32, width=32)
    store = tmp_path / "s"
    chronozarr.encode(da.isel(time=slice(0, 3)), store, crs=CRS, chunk_size=16, progress=False)
    da.isel(time=slice(3, 4)).to_dataset(name="data").to_netcdf(tmp_path / "new.nc")
    before = file_hashes(store)
    script = Path(sys.executable).parent / "chronozarr"
    command = f"mount --bind {store} {store} && mount -o remount,bind,ro {store} && exec {script} append {store} {tmp_path / 'new.nc'}"
    run = subprocess.run(["unshare", "-Urm", "sh", "-c", command], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stdout + run.stderr
    # Off a terminal the phase that was under way announced itself first (`appending: ... ...`).
    lines = [line for line in run.stderr.strip().splitlines() if not line.endswith(" ...")]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "read-only" in lines[0], run.stderr
    assert file_hashes(store) == before

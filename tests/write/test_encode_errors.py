"""Bad input raises InputError (or OutputExistsError) naming the problem, before anything is written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr
from conftest import make_series

import chronozarr


def _series() -> xr.DataArray:
    return make_series(n_time=3, n_band=2, height=10, width=8, dtype="uint16")


def _with_times(times: list[str]) -> xr.DataArray:
    return _series().assign_coords(time=np.array(times, dtype="datetime64[ns]"))


def _irregular_x() -> xr.DataArray:
    da = _series()
    x = da["x"].values.copy()
    x[4] += 3.0
    return da.assign_coords(x=x)


def _increasing_y() -> xr.DataArray:
    da = _series()
    return da.assign_coords(y=da["y"].values[::-1].copy())


# (id, input array factory, extra encode options, exception, words the message must contain)
CASES: list[tuple[str, Callable[[], xr.DataArray], dict[str, Any], type[Exception], tuple[str, ...]]] = [
    ("float64", lambda: make_series(dtype="float32", height=6, width=6).astype("float64"), {}, chronozarr.InputError,
     ("float64", "uint8", "uint16", "int16", "float32", "astype")),
    ("int32", lambda: _series().astype("int32"), {}, chronozarr.InputError,
     ("int32", "uint8", "uint16", "int16", "float32", "astype")),
    ("time-out-of-order", lambda: _with_times(["2024-01-01", "2024-03-01", "2024-02-01"]), {}, chronozarr.InputError,
     ("time", "increasing")),
    ("time-duplicate", lambda: _with_times(["2024-01-01", "2024-02-01", "2024-02-01"]), {}, chronozarr.InputError,
     ("time", "duplicate")),
    ("irregular-x", _irregular_x, {}, chronozarr.InputError, ("x", "regular")),
    ("increasing-y", _increasing_y, {}, chronozarr.InputError, ("y", "decreasing")),
    ("missing-crs", _series, {"crs": None}, chronozarr.InputError, ("CRS",)),
    ("mask-shape", _series, {"mask": np.ones((3, 10, 7), dtype=np.uint8)}, chronozarr.InputError, ("mask", "shape")),
    ("mask-time", _series, {"mask": np.ones((2, 10, 8), dtype=np.uint8)}, chronozarr.InputError, ("mask", "shape")),
    ("coverage-shape", _series, {"coverage": np.ones((3, 9, 8), dtype=np.uint8)}, chronozarr.InputError,
     ("coverage", "shape")),
    ("chunk-odd", _series, {"chunk_size": 7}, chronozarr.InputError, ("chunk_size", "even")),
    ("chunk-zero", _series, {"chunk_size": 0}, chronozarr.InputError, ("chunk_size", "positive")),
    ("chunk-negative", _series, {"chunk_size": -8}, chronozarr.InputError, ("chunk_size", "positive")),
    ("star-delta-int16", lambda: _series().astype("int16"), {"encoding": "star-delta"}, chronozarr.InputError,
     ("star-delta", "int16")),
    ("star-delta-float32", lambda: _series().astype("float32"), {"encoding": "star-delta"}, chronozarr.InputError,
     ("star-delta", "float32")),
    ("shard-time-without-shard", _series, {"shard_time": 2}, chronozarr.InputError, ("shard_time", "shard=True")),
]


@pytest.mark.parametrize(("make", "options", "error", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_before_writing(
    tmp_path: Path,
    make: Callable[[], xr.DataArray],
    options: dict[str, Any],
    error: type[Exception],
    words: tuple[str, ...],
) -> None:
    """The error names the problem and the output path is never created."""
    da = make()
    kwargs: dict[str, Any] = {"crs": "EPSG:32631", "chunk_size": 8, **options}
    store = tmp_path / "store"
    with pytest.raises(error) as caught:
        chronozarr.encode(da, store, **kwargs)
    message = str(caught.value)
    for word in words:
        assert word in message, f"{word!r} missing from: {message}"
    assert not store.exists()


@pytest.mark.parametrize("dtype", ["int16", "float32"])
def test_star_delta_refusal_leaves_an_empty_output_dir_empty(tmp_path: Path, dtype: str) -> None:
    """An existing empty output directory stays there, empty, after a refused encode."""
    store = tmp_path / "store"
    store.mkdir()
    with pytest.raises(chronozarr.InputError):
        chronozarr.encode(_series().astype(dtype), store, crs="EPSG:32631", encoding="star-delta", chunk_size=8)
    assert store.is_dir()
    assert list(store.iterdir()) == []


def test_non_empty_output_is_refused_and_left_untouched(tmp_path: Path) -> None:
    """A directory holding anything raises OutputExistsError; the file in it keeps its bytes."""
    store = tmp_path / "store"
    store.mkdir()
    existing = store / "keep.txt"
    existing.write_bytes(b"precious")
    before = existing.stat().st_mtime_ns
    with pytest.raises(chronozarr.OutputExistsError) as caught:
        chronozarr.encode(_series(), store, crs="EPSG:32631", chunk_size=8)
    assert "not empty" in str(caught.value)
    assert str(store) in str(caught.value)
    assert sorted(p.name for p in store.iterdir()) == ["keep.txt"]
    assert existing.read_bytes() == b"precious"
    assert existing.stat().st_mtime_ns == before


def test_output_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    """A regular file at the output path is an OutputExistsError and is left as it was."""
    target = tmp_path / "store"
    target.write_bytes(b"not a store")
    with pytest.raises(chronozarr.OutputExistsError):
        chronozarr.encode(_series(), target, crs="EPSG:32631", chunk_size=8)
    assert target.read_bytes() == b"not a store"


def test_errors_are_value_errors_too(tmp_path: Path) -> None:
    """InputError subclasses ValueError so generic handlers catch it."""
    with pytest.raises(ValueError):
        chronozarr.encode(_series(), tmp_path / "store", crs="EPSG:32631", chunk_size=3)


def test_mask_values_other_than_0_and_1_leave_no_store(tmp_path: Path) -> None:
    """A mask holding 2 is an InputError naming the mask; no partial store is left behind."""
    mask = np.ones((3, 10, 8), dtype=np.uint8)
    mask[1, 2, 3] = 2
    store = tmp_path / "store"
    with pytest.raises(chronozarr.InputError) as caught:
        chronozarr.encode(_series(), store, crs="EPSG:32631", chunk_size=8, mask=mask)
    assert "mask" in str(caught.value)
    assert not store.exists() or list(store.iterdir()) == []


def _mask_with_a_visitor(visitor: Path) -> Any:
    """A lazy mask whose timestep 1 holds a 2 (found once the encode has started: the input's
    digest reads the first and last timesteps) and whose reading first puts a file of someone
    else's into the output, as another process may while the encode runs."""
    import dask
    import dask.array

    def plane(t: int) -> np.ndarray:
        if t == 1:
            visitor.parent.mkdir(parents=True, exist_ok=True)
            visitor.write_bytes(b"not the encode's")
        values = np.ones((10, 8), dtype=np.uint8)
        values[2, 3] = 2 if t == 1 else 1
        return values

    return dask.array.stack([dask.array.from_delayed(dask.delayed(plane)(t), (10, 8), np.uint8) for t in range(3)])


@pytest.mark.parametrize("made_by", ["encode", "user"])
def test_a_failed_encode_removes_only_what_it_wrote(tmp_path: Path, made_by: str) -> None:
    """The cleanup after bad input deletes the store's own root members and its scratch entry:
    a file another process put into the output meanwhile stays, with the directory holding it."""
    store = tmp_path / "store"
    if made_by == "user":
        store.mkdir()
    visitor = store / "notes" / "field-visit.txt"
    with pytest.raises(chronozarr.InputError, match="mask"):
        chronozarr.encode(_series(), store, crs="EPSG:32631", chunk_size=8, encoding="none", mask=_mask_with_a_visitor(visitor))
    assert sorted(p.relative_to(store).as_posix() for p in store.rglob("*")) == ["notes", "notes/field-visit.txt"]
    assert visitor.read_bytes() == b"not the encode's"

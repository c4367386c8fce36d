"""Resume: an interrupted encode is finished by running it again with `resume=True`.

The output holds the writer's record beside the objects, under `.chronozarr-encode/`:

* `run.json`: what the run writes (options that decide bytes, a description and a content digest
  of the input, the block size, auto's measured choice), written before the first object;
* `units/<unit>.json`: one per finished work unit (what it wrote: objects, bytes, shard lengths,
  volatility sums), written only after every object of the unit is stored.

A unit without a record is written again whole, so an object a killed run left half written is
overwritten, never taken as finished. The metadata is written from the records once every unit
has one, the root zarr.json last; then the record is removed. Resuming with other options or
another input is refused, naming what differs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import OutputExistsError, StoreError
from ..format.zarrjson import parse_json
from .distributed import Named
from .output import SCRATCH, Output
from .walk import WriteResult

RECORD_VERSION = 1
RUN = f"{SCRATCH}/run.json"
UNITS = f"{SCRATCH}/units/"


def input_digest(series: Any) -> dict[str, Any]:
    """What identifies the input: its description and a digest of two small windows of values."""
    n_time, n_band, height, width = series.shape
    digest = hashlib.sha256()
    for t, rows, cols in ((0, slice(0, min(64, height)), slice(0, min(64, width))),
                          (n_time - 1, slice(max(0, height - 64), height), slice(max(0, width - 64), width))):
        for plane in series.read_window(t, rows, cols):
            if plane is not None:
                digest.update(np.ascontiguousarray(plane).tobytes())
    return {
        "shape": [int(s) for s in series.shape],
        "dtype": series.dtype.name,
        "times": hashlib.sha256(np.asarray(series.times_ms, dtype="<i8").tobytes()).hexdigest()[:16],
        "transform": [float(v) for v in series.transform],
        "crs": series.crs,
        "nodata": series.nodata,
        "bands": series.band_labels,
        "mask": series.has_mask,
        "coverage": series.coverage is not None,
        "values": digest.hexdigest()[:16],
    }


@dataclass(frozen=True)
class RunRecord:
    """The first run's statement of what it writes; a resumed run must state the same."""

    options: dict[str, Any]
    input: dict[str, Any]
    span: int
    selection: tuple[str, int, float] | None = None  # auto's choice: (encoding, sampled cells, ratio)

    def to_json(self) -> dict[str, Any]:
        return {
            "chronozarr_encode": RECORD_VERSION,
            "options": self.options,
            "input": self.input,
            "span": self.span,
            "selection": list(self.selection) if self.selection else None,
        }

    @classmethod
    def from_json(cls, doc: Any, where: str) -> RunRecord:
        try:
            if doc["chronozarr_encode"] != RECORD_VERSION:
                raise ValueError(f"record version {doc['chronozarr_encode']!r}")
            sel = doc["selection"]
            selection = (str(sel[0]), int(sel[1]), float(sel[2])) if sel else None
            return cls(dict(doc["options"]), dict(doc["input"]), int(doc["span"]), selection)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise StoreError(f"{where} is not an encode record this version understands ({exc}); remove the output and encode again") from None

    def differences(self, other: RunRecord) -> list[str]:
        """What `other` (this run) states differently from the first run, one phrase each."""
        out = []
        for label, mine, theirs in (("option", self.options, other.options), ("input", self.input, other.input)):
            for key in sorted(set(mine) | set(theirs)):
                if _canonical(mine.get(key)) != _canonical(theirs.get(key)):
                    out.append(f"{label} {key}: {_short(mine.get(key))} in the first run, {_short(theirs.get(key))} now")
        if self.span != other.span:
            out.append(f"option block_size: {self.span} in the first run, {other.span} now")
        return out


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _short(value: Any) -> str:
    text = _canonical(value)
    return text if len(text) <= 60 else text[:57] + "..."


class ResumeLog:
    """The record of one encode in its output."""

    def __init__(self, output: Output, step: Any = None) -> None:
        self.output = output
        self._step = step

    def load(self) -> RunRecord | None:
        data = self.output.get(RUN)
        if data is None:
            return None
        try:
            doc = parse_json(data)
        except ValueError as exc:
            raise StoreError(f"{self.output.describe()}/{RUN} {exc}; remove the output and encode again") from None
        return RunRecord.from_json(doc, f"{self.output.describe()}/{RUN}")

    def holds_record(self) -> bool:
        """Whether the output holds a readable run record: the mark that an encode wrote what is
        there, which a cleanup checks before it removes anything."""
        try:
            return self.load() is not None
        except (StoreError, ValueError):
            return False

    def start(self, record: RunRecord) -> None:
        self._put(RUN, record.to_json())

    def resume(self, record: RunRecord) -> RunRecord:
        """The first run's record, checked against this run's; refuses a different run."""
        first = self.load()
        where = self.output.describe()
        if first is None:
            if self.output.get("zarr.json") is not None:
                raise OutputExistsError(f"{where} already holds a complete store; there is nothing to resume")
            raise OutputExistsError(
                f"{where} holds no interrupted encode to resume (no {RUN}); choose a new output or remove it"
            )
        differences = first.differences(record)
        if differences:
            raise OutputExistsError(
                f"--resume: {where} was started by another encode ({'; '.join(differences[:4])}); "
                "run the first command again with --resume, or choose a new output"
            )
        return first

    def record_selection(self, record: RunRecord, selection: tuple[str, int, float]) -> RunRecord:
        chosen = RunRecord(record.options, record.input, record.span, selection)
        self._put(RUN, chosen.to_json())
        return chosen

    def done_units(self) -> dict[str, WriteResult]:
        """Every unit recorded as finished, by name."""
        out = {}
        for key in self.output.keys(UNITS):
            if not key.endswith(".json"):
                continue
            data = self.output.get(key)
            if data is None:
                continue
            try:
                out[key[len(UNITS) : -len(".json")]] = _result_from_json(parse_json(data))
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                raise StoreError(f"{self.output.describe()}/{key} is not a unit record ({exc}); remove it and resume again") from None
        return out

    def record_unit(self, unit: Named, result: WriteResult) -> None:
        self._put(f"{UNITS}{unit.name}.json", _result_to_json(result))

    def finish(self) -> None:
        """Remove the record: the store is complete (its root zarr.json was written)."""
        self.output.delete_prefix(SCRATCH)

    def _put(self, key: str, doc: dict[str, Any]) -> None:
        self.output.put_atomic(key, json.dumps(doc).encode())
        if self._step is not None:
            self._step()


def _result_to_json(result: WriteResult) -> dict[str, Any]:
    return {
        "objects": result.objects,
        "nbytes": result.nbytes,
        "shard_bytes": result.shard_bytes,
        "volatility": [[r, c, terms, result.volatility_count[(r, c)]] for (r, c), terms in sorted(result.volatility_terms.items())],
    }


def _result_from_json(doc: dict[str, Any]) -> WriteResult:
    result = WriteResult(int(doc["objects"]), int(doc["nbytes"]))
    result.shard_bytes = {str(level): {str(k): int(v) for k, v in sizes.items()} for level, sizes in doc["shard_bytes"].items()}
    for r, c, terms, count in doc["volatility"]:
        result.volatility_terms[(int(r), int(c))] = [(int(t), float(v)) for t, v in terms]
        result.volatility_count[(int(r), int(c))] = int(count)
    return result

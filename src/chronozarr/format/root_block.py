"""The root `chronozarr` attribute (spec 3.2) as one frozen value: the writer builds it, append
grows it, the reader parses it and publish compares two of them.

`from_dict` reads v0.1 blocks too (spec 13): bands as strings, no `levels`, `band_names`,
`times` or `shard_bytes`, and a temporal block without `encoding` (star-delta). What a parsed
block did not carry stays absent in `to_dict`, so a v0.1 block is written back in its own form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import BlockError, HistoryError
from .history import HistoryLayout
from .metadata import Band, LevelMirror, Provenance, Temporal, check_spec_version
from .times import from_iso

MASK = "mask"
COVERAGE = "coverage"
VOLATILITY_PATH = "volatility"
# The fields an append may change (spec 14); every other field of the block stays as it was.
APPEND_GROWS = frozenset({"times", "temporal", "levels", "shard_bytes", "history"})
_KNOWN = (
    "spec_version", "variable", "times", "bands", "band_names", "nodata", "crs", "temporal",
    "volatility_path", "mask_variable", "coverage_variable", "provenance", "levels", "shard_bytes", "history",
)


def is_legacy(spec_version: str) -> bool:
    """A v0.1 store (spec 13): its fallbacks apply."""
    return spec_version.startswith("0.1")


@dataclass(frozen=True)
class RootBlock:
    """The values of the root `chronozarr` attribute."""

    spec_version: str
    variable: str
    bands: tuple[Band, ...]
    nodata: float | int | None
    crs: str | None
    temporal: Temporal
    times: tuple[str, ...] | None = None
    band_names: tuple[str, ...] | None = None
    volatility_path: str | None = VOLATILITY_PATH
    mask_variable: str | None = None
    coverage_variable: str | None = None
    provenance: Provenance | None = None
    levels: tuple[LevelMirror, ...] | None = None
    shard_bytes: Mapping[str, Mapping[str, int]] | None = None
    history: HistoryLayout | None = None  # the time-major history array (docs/format-history.md)
    history_problem: str | None = None  # why a declaration present was unusable (it is then kept in extra as found)
    bands_as_names: bool = False  # the v0.1 string form, kept when the block is written back
    omitted: frozenset[str] = frozenset()  # nodata, crs or temporal.encoding, when a v0.1 block left them out
    extra: Mapping[str, Any] = field(default_factory=dict)  # fields this version does not read, kept as found

    @property
    def legacy(self) -> bool:
        return is_legacy(self.spec_version)

    @property
    def plane_variables(self) -> list[str]:
        """The names of the mask and coverage arrays the store has, in that order."""
        return [v for v in (self.mask_variable, self.coverage_variable) if v]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"spec_version": self.spec_version, "variable": self.variable}
        if self.times is not None:
            out["times"] = list(self.times)
        out["bands"] = [b.name for b in self.bands] if self.bands_as_names else [b.to_dict() for b in self.bands]
        if self.band_names is not None:
            out["band_names"] = list(self.band_names)
        for name, value in (("nodata", self.nodata), ("crs", self.crs)):
            if name not in self.omitted:
                out[name] = value
        out["temporal"] = self.temporal.to_dict()
        if "temporal.encoding" in self.omitted:
            del out["temporal"]["encoding"]
        optional = {
            "volatility_path": self.volatility_path,
            "mask_variable": self.mask_variable,
            "coverage_variable": self.coverage_variable,
            "provenance": self.provenance.to_dict() if self.provenance is not None else None,
            "levels": [m.to_dict() for m in self.levels] if self.levels is not None else None,
            "shard_bytes": ordered_shard_bytes(self.shard_bytes) if self.shard_bytes is not None else None,
            "history": self.history.to_dict() if self.history is not None else None,
        }
        out.update({k: v for k, v in optional.items() if v is not None})
        out.update(self.extra)
        return out

    @classmethod
    def from_dict(cls, block: Mapping[str, Any]) -> RootBlock:
        """Parse a block; BlockError names a field the reader cannot use, and the ValueError or
        TypeError of a band, level or temporal entry names that entry."""
        version = check_spec_version(block.get("spec_version"))
        legacy = is_legacy(version)
        temporal = Temporal.from_dict(block.get("temporal", {}), legacy=legacy)
        variable = block.get("variable", "data")
        if not isinstance(variable, str) or not variable or "/" in variable:
            raise BlockError(f"chronozarr.variable must be an array name, got {variable!r}")
        levels = block.get("levels")
        raw_bands = block.get("bands") or block.get("band_names") or []
        if not isinstance(raw_bands, list):
            raise BlockError(f"chronozarr.bands must be a list of band objects or names, got {raw_bands!r}")
        names = block.get("band_names")
        provenance, extra = _provenance(block.get("provenance"))
        history, history_problem = _history(block)
        if history_problem is not None:
            extra["history"] = block["history"]
        temporal_raw = block.get("temporal")
        omitted = {k for k in ("nodata", "crs") if k not in block}
        if isinstance(temporal_raw, Mapping) and "encoding" not in temporal_raw:
            omitted.add("temporal.encoding")
        return cls(
            spec_version=version,
            variable=variable,
            bands=tuple(Band.from_dict(b) for b in raw_bands),
            nodata=_nodata(block.get("nodata")),
            crs=block.get("crs"),
            temporal=temporal,
            times=_times(block["times"]) if isinstance(block.get("times"), list) else None,
            band_names=tuple(names) if isinstance(names, list) else None,
            volatility_path=block.get("volatility_path"),
            mask_variable=_plane_name(block, "mask_variable"),
            coverage_variable=_plane_name(block, "coverage_variable"),
            provenance=provenance,
            levels=tuple(LevelMirror.from_dict(m) for m in levels) if isinstance(levels, list) else None,
            shard_bytes=_shard_bytes(block["shard_bytes"]) if "shard_bytes" in block else None,
            history=history,
            history_problem=history_problem,
            bands_as_names=bool(raw_bands) and all(isinstance(b, str) for b in raw_bands),
            omitted=frozenset(omitted),
            extra={**extra, **{k: v for k, v in block.items() if k not in _KNOWN}},
        )

    def appended(
        self,
        times: Sequence[str],
        temporal: Temporal,
        n_time: int,
        shard_bytes: Mapping[str, Mapping[str, int]],
        history_bytes: Mapping[str, Mapping[str, int]] | None = None,
    ) -> RootBlock:
        """The block after an append to `n_time` timesteps (spec 14): only the fields in
        APPEND_GROWS change, each only where the block carries it."""
        merged = None
        if self.shard_bytes is not None:
            merged = {level: dict(sizes) for level, sizes in self.shard_bytes.items()}
            for level, sizes in shard_bytes.items():
                merged.setdefault(level, {}).update(sizes)
        levels = None if self.levels is None else tuple(replace(m, shape=(n_time, *m.shape[1:])) for m in self.levels)
        return replace(
            self,
            times=tuple(times) if self.times is not None else None,
            temporal=temporal,
            levels=levels,
            shard_bytes=merged,
            history=self.history.written(history_bytes or {}) if self.history is not None else None,
        )


def ordered_shard_bytes(shard_bytes: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """shard_bytes with levels and shards in numeric order, so equal content gives equal JSON."""
    return {lvl: dict(sorted(shard_bytes.get(lvl, {}).items(), key=_shard_order)) for lvl in sorted(shard_bytes, key=int)}


def _shard_order(item: tuple[str, int]) -> tuple[int, ...]:
    return tuple(int(p) for p in item[0].split("/"))


def _history(block: Mapping[str, Any]) -> tuple[HistoryLayout | None, str | None]:
    """The history declaration, or (None, why) when one is present but unusable: a store is never
    failed for it, its readers read histories from level 0 (docs/format-history.md)."""
    if "history" not in block:
        return None, None
    try:
        return HistoryLayout.from_dict(block["history"]), None
    except HistoryError as exc:
        return None, str(exc)


def _provenance(value: Any) -> tuple[Provenance | None, dict[str, Any]]:
    """The provenance (spec 3.8), which no reader needs: one the model cannot read is kept as found."""
    if value is None:
        return None, {}
    try:
        return Provenance.from_dict(value), {}
    except (TypeError, ValueError):
        return None, {"provenance": value}


def _times(values: list[Any]) -> tuple[str, ...]:
    """chronozarr.times; each entry must be an ISO-8601 string (spec 3.2)."""
    for i, text in enumerate(values):
        if not isinstance(text, str):
            raise BlockError(f"chronozarr.times[{i}] must be an ISO-8601 string, got {text!r}")
    try:
        from_iso(values)
    except ValueError as exc:
        raise BlockError(f"chronozarr.times holds a value that is not an ISO-8601 timestamp: chronozarr.times{exc}") from None
    return tuple(values)


def _nodata(value: Any) -> float | int | None:
    """chronozarr.nodata: a finite number or null (spec 2.3)."""
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) != float("inf")):
        return value
    raise BlockError(f"chronozarr.nodata must be a finite number or null, got {value!r}")


def _shard_bytes(value: Any) -> Mapping[str, Mapping[str, int]]:
    """chronozarr.shard_bytes: {level path: {"t/r/c": byte length}} (spec 7.3); names the first bad entry."""
    rule = "chronozarr.shard_bytes must map level paths to {'<t_shard>/<row>/<col>': byte length}"
    if not isinstance(value, Mapping):
        raise BlockError(f"{rule}, got {type(value).__name__}")
    for level, lengths in value.items():
        if not isinstance(lengths, Mapping):
            raise BlockError(f"{rule}; entry {level!r} is {type(lengths).__name__}")
        for key, n in lengths.items():
            if isinstance(n, bool) or not isinstance(n, int):
                raise BlockError(f"{rule}; [{level!r}][{key!r}] is {n!r}, not an integer")
    return value


def _plane_name(block: Mapping[str, Any], field_name: str) -> str | None:
    """mask_variable or coverage_variable: absent, or the name of an array of every level (spec 2.4, 2.5)."""
    value = block.get(field_name)
    if value is None:
        return None
    if not isinstance(value, str) or not value or "/" in value:
        raise BlockError(
            f"chronozarr.{field_name} must be the name of an array (\"{field_name.split('_')[0]}\"), got {value!r}: "
            "a store without one omits the field"
        )
    return value

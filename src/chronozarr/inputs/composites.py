"""Temporal composites as an input: acquisitions (STAC items, dated files, manifest rows) grouped
into periods, each period one timestep whose scenes are reduced per pixel (inputs/composite_reads.py).

The periods and reducers are the format's (format/periods.py, format/reducers.py); this module
groups the scenes, decides how Sentinel-2 processing baselines are put on one convention, reads
the mask assets onto the store's grid, and builds the lazy data, mask and coverage arrays that the
writer takes like any series. What was decided is said in notes for the summary and provenance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..crs import Declared, against_target
from ..errors import InputError, Unreadable
from ..format.observation_masks import MaskRule, mask_rules, rule_notes
from ..format.periods import Period, composite_name, parse_period, period_starts
from ..format.reducers import REDUCERS, check_reducer
from .composite_reads import BOA_SHIFT, CompositeReads, MaskReader
from .frames import TIMESTEPS_OPEN, FrameReads, OpenFiles, RasterFrames, lazy_array
from .grid import Placement, place, scaled
from .raster_bands import AssetBands
from .raster_series import RasterSeries
from .rasters import Raster, read_headers
from .scenes import Acquisition, Asset, Scene, Timestep

GAP_FILLS = ("none", "carry-forward")
HARMONIZE = ("offset", "none")
CLUSTER_CHUNK = 512  # pixels per side of a dask chunk of the composite on a cluster
BASELINE_04_FROM = np.datetime64("2022-01-25", "ns")  # the first acquisitions processed with baseline 04.00
BAND_SCALE, BAND_OFFSET = 1e-4, -0.1  # baseline 04.00's convention: physical = DN x 1e-4 - 0.1


@dataclass(frozen=True)
class CompositeOptions:
    """--composite, --reducer, --valid / --mask-bits, --gap-fill, --period-start, --harmonize."""

    period: Period
    reducer: str = "median"
    rules: tuple[MaskRule, ...] = ()
    gap_fill: str = "none"
    period_start: np.datetime64 | None = None
    harmonize: str | None = None  # None: decided from the items
    carried_in: Any = field(default=None, compare=False)  # append: (rows, cols) -> (values, has) of the store's last timestep
    store_offset: bool | None = None  # append: whether the store's bands are on baseline 04.00's convention

    @property
    def name(self) -> str:
        return composite_name(self.period, self.reducer)


def composite_options(
    composite: str | None, reducer: str | None = None, valid: Sequence[str] = (), mask_bits: Sequence[str] = (),
    gap_fill: str | None = None, period_start: str | None = None, harmonize: str | None = None,
) -> CompositeOptions | None:
    """The composite options, None without --composite (then none of the others may be given)."""
    if composite is None:
        given = [n for n, v in (("--reducer", reducer), ("--valid", valid), ("--mask-bits", mask_bits), ("--gap-fill", gap_fill),
                                ("--period-start", period_start), ("--harmonize", harmonize)) if v]
        if given:
            raise InputError(f"{given[0]} applies to composites; add --composite PERIOD (e.g. --composite month --reducer median)")
        return None
    if gap_fill is not None and gap_fill not in GAP_FILLS:
        raise InputError(f"--gap-fill {gap_fill!r}: choose {' or '.join(GAP_FILLS)}")
    if harmonize is not None and harmonize not in HARMONIZE:
        raise InputError(f"--harmonize {harmonize!r}: choose offset (one baseline convention, older scenes shifted) or none (values as delivered)")
    start = None
    if period_start is not None and parse_period(composite).kind != "days":
        raise InputError(f"--period-start counts fixed periods such as 16D; a {composite} starts on the calendar, give no --period-start")
    if period_start is not None:
        try:
            start = np.datetime64(period_start.rstrip("Z"), "D").astype("datetime64[ns]")
        except ValueError:
            raise InputError(f"--period-start {period_start!r} is no date; give one such as 2024-01-01") from None
    return CompositeOptions(parse_period(composite), check_reducer(reducer or "median"), mask_rules(valid, mask_bits),
                            gap_fill or "none", start, harmonize)


def follow_store(options: CompositeOptions, provenance: Any, reducer_given: bool, gap_fill_given: bool) -> CompositeOptions:
    """An append's composite options held to the store's definition (its provenance's `composite`,
    `gap_fill` and mask-rule notes): a reducer or gap fill not given is the store's, and a period,
    reducer, gap fill or mask rule other than the store's is refused rather than mixed into one series."""
    made = provenance.get("composite") if isinstance(provenance, Mapping) else None
    if not isinstance(made, str) or made.rsplit(" ", 1)[-1] not in REDUCERS:
        return options  # not a composite store ("none", a day's mosaic): append's own checks judge it
    stored_reducer, stored_gap = made.rsplit(" ", 1)[1], provenance.get("gap_fill")
    if not reducer_given:
        options = replace(options, reducer=stored_reducer)
    if not gap_fill_given and stored_gap in GAP_FILLS:
        options = replace(options, gap_fill=stored_gap)
    if options.name != made:
        raise InputError(f"the store is a {made} composite (provenance.composite) and these options make a {options.name} one; "
                         f"give the store's --composite and --reducer ({made}) so one series keeps one definition")
    if stored_gap in GAP_FILLS and options.gap_fill != stored_gap:
        raise InputError(f"the store's gap fill is {stored_gap} (provenance.gap_fill); give --gap-fill {stored_gap} to append to it")
    stored_rules, rules = set(rule_notes(str(provenance.get("notes") or ""))), {r.note for r in options.rules}
    if stored_rules != rules:
        said = "; ".join(sorted(stored_rules)) or "nodata alone (no --valid or --mask-bits)"
        raise InputError(f"the store's observations were judged by {said}, these by {'; '.join(sorted(rules)) or 'nodata alone'}; "
                         "give the store's --valid and --mask-bits so every period is masked alike")
    return options


@dataclass(frozen=True)
class CompositePlan:
    """The periods (start, acquisitions in order), the DN shift of each acquisition, and what was decided."""

    options: CompositeOptions
    starts: tuple[np.datetime64, ...]
    periods: tuple[tuple[Acquisition, ...], ...]
    shifts: tuple[tuple[int, ...], ...]
    offset_bands: bool
    notes: tuple[str, ...]

    @property
    def timesteps(self) -> list[Timestep]:
        return [Timestep(start, tuple(a.scene for a in acqs)) for start, acqs in zip(self.starts, self.periods, strict=True)]

    def without(self, timesteps: Sequence[Timestep]) -> CompositePlan:
        """The plan keeping only the scenes left in `timesteps` (after unreadable files were skipped)."""
        kept = {s for t in timesteps for s in t.scenes}
        rows = [(s, tuple(a for a in acqs if a.scene in kept)) for s, acqs in zip(self.starts, self.periods, strict=True)]
        rows = [(s, acqs) for s, acqs in rows if acqs]
        return plan_periods([a for _, acqs in rows for a in acqs], self.options)

    def lines(self) -> list[str]:
        """The periods and the scenes in each, as the dry run prints them."""
        out = [f"{self.options.name} composite of {sum(len(p) for p in self.periods)} scene(s) in {len(self.periods)} period(s):"]
        for start, acqs, shifts in zip(self.starts, self.periods, self.shifts, strict=True):
            scenes = ", ".join(f"{a.scene.label} ({str(a.datetime)[:19]}{f', +{s} DN' if s else ''})" for a, s in zip(acqs, shifts, strict=True))
            out.append(f"  {str(start)[:10]}  {len(acqs)} scene(s): {scenes}")
        return out


def plan_periods(acquisitions: Sequence[Acquisition], options: CompositeOptions) -> CompositePlan:
    """The acquisitions grouped into periods in date order, and their baseline shifts decided."""
    if not acquisitions:
        raise InputError("no scene is left to composite")
    ordered = sorted(acquisitions, key=lambda a: a.datetime)
    starts = period_starts(np.array([a.datetime for a in ordered], dtype="datetime64[ns]"), options.period, options.period_start)
    groups: dict[np.datetime64, list[Acquisition]] = {}
    for start, acq in zip(starts, ordered, strict=True):
        groups.setdefault(start, []).append(acq)
    shift_of, offset_bands, notes = _baselines(ordered, options.harmonize, options.store_offset)
    periods = tuple(tuple(g) for g in groups.values())
    notes = [f"{options.name} composite of {len(ordered)} scene(s) in {len(periods)} period(s), each labelled with its start (UTC)",
             _rounding_note(options.reducer), *(r.note for r in options.rules), f"gap fill {options.gap_fill}", *notes]
    return CompositePlan(options, tuple(groups), periods, tuple(tuple(shift_of(a) for a in g) for g in periods), offset_bands,
                         tuple(n for n in notes if n))


def _rounding_note(reducer: str) -> str:
    if reducer in ("median", "mean"):
        return f"{reducer} over the valid observations in float64, rounded half to even for integer stores"
    if reducer == "medoid":
        return "medoid: the observation nearest the per-band median (Euclidean, stored units; ties to the earlier), all bands from it"
    return ""


def _baselines(ordered: Sequence[Acquisition], harmonize: str | None, store_offset: bool | None = None) -> tuple[Any, bool, list[str]]:
    """(DN shift per acquisition, whether the bands take baseline 04.00's scale and offset, notes).
    `store_offset` is an appended store's convention: True when its bands are baseline 04.00's."""
    s2 = [a for a in ordered if a.sentinel2]
    told = {a.boa_offset for a in s2 if a.boa_offset is not None}
    unknown = [a for a in s2 if a.boa_offset is None]
    straddles = bool(unknown) and min(a.datetime for a in unknown) < BASELINE_04_FROM <= max(a.datetime for a in unknown)
    mixed = len(told) > 1 or (bool(told) and bool(unknown)) or straddles
    if s2 and harmonize != "none" and store_offset is not None:
        mixed = mixed or bool(told - {store_offset})  # the store's scenes are the other side of the mix
        if store_offset is False and True in told:
            first = next(a for a in s2 if a.boa_offset is True)
            raise InputError(
                f"the store holds Sentinel-2 values without baseline 04.00's -1000 DN offset (its bands' offset is not -0.1) and "
                f"{first.scene.label} carries it; appending would "
                "shift the series by about 1000 DN: give --harmonize none to append the values as delivered, or convert the whole "
                "series again with --composite"
            )
    if not s2 or not mixed or harmonize == "none":
        said = ["Sentinel-2 processing baselines not harmonised (--harmonize none): values as delivered"] if s2 and mixed else []
        return (lambda a: 0), bool(s2) and store_offset is True and harmonize != "none", said
    if unknown:
        first = unknown[0]
        raise InputError(
            f"{first.scene.label} does not say its Sentinel-2 processing baseline (earthsearch:boa_offset_applied or "
            "s2:processing_baseline) and the series spans baseline 04.00 (2022-01-25), whose values carry a -1000 DN offset; "
            "give --harmonize none to keep the values as delivered, or add the property to the items"
        )
    older = sum(1 for a in s2 if a.boa_offset is False)
    note = (f"Sentinel-2 processing baselines harmonised (--harmonize offset): {older} scene(s) before baseline 04.00 shifted by "
            f"+{BOA_SHIFT} DN where valid, so every band is stored as baseline 04.00 delivers it (scale 0.0001, offset -0.1)")
    return (lambda a: BOA_SHIFT if a.sentinel2 and a.boa_offset is False else 0), True, [note]


def acquisitions_of(timesteps: Sequence[Timestep]) -> list[Acquisition]:
    """Dated files or manifest rows as acquisitions (their masks, if any, are none)."""
    return [Acquisition(t.datetime, s) for t in timesteps for s in t.scenes]


def check_as_delivered(acquisitions: Sequence[Acquisition], options: CompositeOptions) -> None:
    """--harmonize none on Sentinel-2 items whose listing declares one band offset before baseline
    04.00 and another from it (Earth Search: 0 and -0.1): one store cannot hold both as delivered."""
    if options.harmonize != "none":
        return
    offsets: dict[float | None, Acquisition] = {}
    for acq in (a for a in acquisitions if a.sentinel2):
        for asset in acq.scene.assets:
            offsets.setdefault(asset.hints.offset if asset.hints is not None else None, acq)
    if len(offsets) > 1:
        (one, a), (other, b) = sorted(offsets.items(), key=lambda pair: pair[1].datetime)[:2]
        raise InputError(
            f"--harmonize none keeps each scene as delivered, but {a.scene.label} declares band offset {one} and {b.scene.label} "
            f"{other} (Sentinel-2 processing baseline 04.00 from 2022-01-25); a store has one offset per band: leave out "
            "--harmonize none (--harmonize offset shifts the older scenes by +1000 DN, losslessly), or composite each side on its own"
        )


def plain_hints(acquisitions: Sequence[Acquisition]) -> list[Acquisition]:
    """The acquisitions without the scale and offset their listing declares: harmonised bands take one for the store."""
    def plain(asset: Asset) -> Asset:
        return replace(asset, hints=replace(asset.hints, scale=None, offset=None)) if asset.hints is not None else asset

    return [replace(a, scene=Scene(tuple(plain(x) for x in a.scene.assets), a.scene.label, a.scene.masks)) for a in acquisitions]


def composite_arrays(series: RasterSeries, plan: CompositePlan, coords: dict[str, np.ndarray], dims: tuple[str, ...]) -> tuple[Any, ...]:
    """(series with its bands, data, mask, coverage, the reads, resources, notes) of the composite."""
    if plan.offset_bands:
        series = replace(series, bands=tuple(replace(b, scale=BAND_SCALE, offset=BAND_OFFSET) for b in series.bands))
    files = OpenFiles(series)
    masks, mask_files, notes = _mask_reader(series, plan.options.rules)
    shifts = plan.shifts
    reads = CompositeReads(series, FrameReads(series, files), plan.options.reducer, plan.options.gap_fill, shifts, masks,
                           plan.options.carried_in)
    data = _cluster_array(RasterFrames(reads), dims, coords)
    data = data if data is not None else lazy_array(RasterFrames(reads), dims, coords)
    mask = lazy_array(RasterFrames(reads, mask=True), ("time", "y", "x"), coords)
    coverage = lazy_array(RasterFrames(reads, coverage=True), ("time", "y", "x"), coords)
    return series, data, mask, coverage, reads, (files, *mask_files), notes


class _Basic:
    """RasterFrames indexed as dask indexes an array: a tuple of slices."""

    def __init__(self, frames: RasterFrames):
        self.frames, self.shape, self.dtype, self.ndim = frames, frames.shape, frames.dtype, len(frames.shape)

    def __getitem__(self, key: tuple[slice, ...]) -> np.ndarray:
        return self.frames._read(tuple(key))


def _cluster_array(frames: RasterFrames, dims: tuple[str, ...], coords: dict[str, np.ndarray]) -> Any:
    """With a dask.distributed client running, the data as a dask array of (1 period, every band,
    CLUSTER_CHUNK pixels square) chunks, so the writer runs periods x blocks as cluster tasks (the
    reads travel pickled and open their files where they run); None without one."""
    try:
        from distributed import get_client

        get_client()
    except (ImportError, ValueError):
        return None
    import uuid

    import dask.array
    import xarray as xr

    chunks = (1, frames.shape[1], CLUSTER_CHUNK, CLUSTER_CHUNK)
    array = dask.array.from_array(_Basic(frames), chunks=chunks, name=f"chronozarr-composite-{uuid.uuid4().hex}", asarray=False, fancy=False)
    return xr.DataArray(array, dims=dims, coords={k: v for k, v in coords.items() if k in dims})


def _mask_reader(series: RasterSeries, rules: tuple[MaskRule, ...]) -> tuple[MaskReader | None, tuple[OpenFiles, ...], list[str]]:
    """The mask assets on the store's grid: read exactly where they land, else by nearest neighbour."""
    if not rules:
        return None, (), []
    uris = list(dict.fromkeys(m.uri for t in series.timesteps for s in t.scenes for m in s.masks))
    headers: dict[str, Raster] = {}
    for uri, header in zip(uris, read_headers(uris), strict=True):
        if isinstance(header, Unreadable):
            raise header
        if header.transform is None or header.crs is None:
            raise InputError(f"the mask asset {uri} has no georeferencing; a mask is read onto the store's grid by its CRS and geotransform")
        if np.dtype(header.dtypes[0]).kind not in "iu":
            raise InputError(f"the mask asset {uri} holds {header.dtypes[0]} values; --valid and --mask-bits judge integer classes or bits")
        headers[uri] = header
    grid = series.grid
    placements: dict[str, Placement] = {}
    for uri, header in headers.items():
        assert header.transform is not None and header.crs is not None
        same = against_target(Declared(header.crs, f"the CRS of {uri}"), grid.crs).equivalent
        code = grid.crs if same else None
        placements[uri] = scaled(header, header.transform, code, grid) or place(header, header.transform, code, header.crs, grid)
    dtype = np.result_type(*(h.dtypes[0] for h in headers.values())).name
    mask_series = replace(series, headers=headers, placements=placements, nodata=None, resampling="nearest", dtype=dtype)
    per_period = max(sum(len(s.masks) for s in t.scenes) for t in series.timesteps)
    files = OpenFiles(mask_series, limit=TIMESTEPS_OPEN * max(per_period, 1))
    position = AssetBands((1,), None, None, (1.0,), (0.0,), (None,), (None,), (None,), ("gray",))
    warped = [u for u, p in placements.items() if p.kind in ("warped", "scaled")]
    first = headers[uris[0]]
    assert first.transform is not None
    said = (f"mask asset(s) {', '.join(r.asset for r in rules)} read onto the store's grid by nearest neighbour "
            f"({len(warped)} of {len(headers)} file(s) resampled, e.g. {abs(first.transform[0]):g} onto {grid.transform[0]:g} pixels); "
            "masks are not stored as bands") if warped else f"mask asset(s) {', '.join(r.asset for r in rules)} on the store's grid; not stored as bands"
    return MaskReader(FrameReads(mask_series, files), rules, position), (files,), [said]


def sources_of(plan: CompositePlan) -> tuple[str, ...]:
    """provenance.sources: each collection of the items with its platforms."""
    found: dict[str, set[str]] = {}
    for acqs in plan.periods:
        for a in acqs:
            if a.collection or a.platform:
                found.setdefault(a.collection or "unnamed collection", set()).update([a.platform] if a.platform else [])
    return tuple(f"{name} ({', '.join(sorted(platforms))})" if platforms else name for name, platforms in found.items())

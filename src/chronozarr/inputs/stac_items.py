"""STAC items as the timesteps of a series: what a STAC API search saves (a GeoJSON
FeatureCollection of Items), parsed with pystac.

Each item is one scene with one file per asset named by `--assets` (the assets' keys become the
band names); its datetime is the timestep's, or with `--group-by day` the items of one UTC day
are one timestep, mosaicked in the order the collection lists them. What the assets say of their
band (raster:bands nodata, scale, offset, unit; eo:bands common name; or the same in STAC 1.1's
`bands`) replaces what the files declare.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC
from typing import Any

import numpy as np

from ..errors import InputError
from ..extras import import_extra
from ..format.zarrjson import parse_json
from .listing import gdal_path
from .scenes import Acquisition, Asset, BandHints, Scene, Timestep, one_per_date

GROUPINGS = ("day",)


def is_item_collection(text: str) -> bool:
    """True for JSON text holding a FeatureCollection of STAC items, or one STAC item."""
    try:
        value = parse_json(text)
    except ValueError:
        return False
    return isinstance(value, Mapping) and (
        value.get("type") == "FeatureCollection" or (value.get("type") == "Feature" and "stac_version" in value)
    )


def stac_timesteps(text: str, where: str, assets: Sequence[str] | None, group_by: str | None) -> list[Timestep]:
    """The items of the collection in `text` (read from `where`) as timesteps in date order."""
    items = _items(parse_json(text), where)
    if not assets:
        keys = ", ".join(sorted(items[0].assets)) or "none"
        example = ",".join(sorted(k for k, a in items[0].assets.items() if "image" in (a.media_type or "image"))[:4])
        raise InputError(
            f"{where} is a STAC item collection: choose the assets that become bands with --assets "
            f"(e.g. --assets {example or 'KEY'}); the first item's assets are {keys}"
        )
    if group_by is not None and group_by not in GROUPINGS:
        raise InputError(f"--group-by {group_by!r}: the one grouping is 'day' (the items of one UTC day mosaicked)")
    scenes = [(_datetime(item, where), _scene(item, assets, where)) for item in items]
    if group_by == "day":
        days: dict[np.datetime64, list[Scene]] = {}
        for stamp, scene in scenes:
            days.setdefault(stamp.astype("datetime64[D]").astype("datetime64[ns]"), []).append(scene)
        steps = [Timestep(day, tuple(group)) for day, group in days.items()]
    else:
        steps = [Timestep(stamp, (scene,)) for stamp, scene in scenes]
    steps.sort(key=lambda step: step.datetime)
    one_per_date(steps, "mosaic the items of one day with --group-by day, or remove one of them")
    return steps


def stac_acquisitions(text: str, where: str, assets: Sequence[str] | None, masks: Sequence[str] = ()) -> list[Acquisition]:
    """Every item of the collection as one acquisition in date order (listed order on a tie), with
    the mask assets `masks` read beside its bands: what a composite groups into periods."""
    items = _items(parse_json(text), where)
    if not assets:
        stac_timesteps(text, where, assets, None)  # the same refusal, naming the assets there are
    assert assets is not None
    both = sorted(set(assets) & set(masks))
    if both:
        raise InputError(f"{both[0]!r} is a mask asset (--valid or --mask-bits) and in --assets; a mask is not a band of the store, drop it from --assets")
    found = []
    for item in items:
        scene = _scene(item, assets, where)
        mask_assets = _scene(item, masks, where, masks=True).assets if masks else ()
        found.append(Acquisition(
            _datetime(item, where), Scene(scene.assets, scene.label, tuple(Asset(a.uri) for a in mask_assets)),
            collection=item.collection_id, platform=item.common_metadata.platform, **_sentinel2(item),
        ))
    return sorted(found, key=lambda a: a.datetime)


def _sentinel2(item: Any) -> dict[str, Any]:
    """Whether the item is Sentinel-2's, and whether its pixels carry the +1000 DN of baseline
    04.00 (BOA_ADD_OFFSET -1000): told by the baseline (`s2:processing_baseline`, given by
    Planetary Computer and Earth Search), unless the provider says it took the offset out already
    (`earthsearch:boa_offset_applied` true: the values are on the older convention). None when
    the item says neither."""
    props = item.properties
    platform = str(props.get("platform") or props.get("constellation") or "").lower()
    sentinel2 = platform.startswith("sentinel-2") or "sentinel-2" in str(item.collection_id or "").lower() or any(k.startswith("s2:") for k in props)
    applied = props.get("earthsearch:boa_offset_applied", props.get("sentinel:boa_offset_applied"))
    if applied is True:
        return {"sentinel2": sentinel2, "boa_offset": False}
    baseline = props.get("s2:processing_baseline", props.get("sentinel:processing_baseline"))
    try:
        return {"sentinel2": sentinel2, "boa_offset": float(baseline) >= 4.0 if baseline is not None else None}
    except (TypeError, ValueError):
        return {"sentinel2": sentinel2, "boa_offset": None}


def _items(value: Any, where: str) -> list[Any]:
    pystac = import_extra("pystac", "geo", "reading STAC items")
    try:
        if value.get("type") == "Feature":
            items = [pystac.Item.from_dict(value, preserve_dict=True)]
        else:
            items = list(pystac.ItemCollection.from_dict(value, preserve_dict=True))
    except Exception as exc:  # pystac raises STACTypeError, KeyError, ValueError for malformed items
        raise InputError(f"{where} is not a valid STAC item collection ({type(exc).__name__}: {exc})") from None
    if not items:
        raise InputError(f"{where} holds no STAC items; save a search that returns at least one")
    return items


def _datetime(item: Any, where: str) -> np.datetime64:
    stamp = item.datetime or item.common_metadata.start_datetime
    if stamp is None:
        raise InputError(f"{where}: item {item.id} has no datetime or start_datetime; a timestep needs a date")
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(UTC).replace(tzinfo=None)
    return np.datetime64(stamp, "ns")


def _scene(item: Any, keys: Sequence[str], where: str, masks: bool = False) -> Scene:
    """The item's assets `keys`; mask assets (`masks`) are matched in any case when the key is not
    there as written (Earth Search's `scl` is Planetary Computer's `SCL`)."""
    chosen = []
    for key in keys:
        asset = item.assets.get(key)
        if asset is None and masks:
            folded = [k for k in item.assets if k.lower() == key.lower()]
            asset = item.assets[folded[0]] if len(folded) == 1 else None
        if asset is None:
            fix = ("name the item's mask asset in --valid or --mask-bits" if masks
                   else "drop it from --assets, or remove the item from the collection")
            raise InputError(f"{where}: item {item.id} has no asset {key!r} (its assets are {', '.join(sorted(item.assets))}); {fix}")
        chosen.append(Asset(gdal_path(asset.href, where), _hints(key, asset.extra_fields)))
    return Scene(tuple(chosen), f"item {item.id}")


def _hints(key: str, fields: Mapping[str, Any]) -> BandHints:
    """What an asset's extension fields say of its (first) band."""
    raster = _first(fields.get("raster:bands"))
    eo = _first(fields.get("eo:bands"))
    band = _first(fields.get("bands"))  # STAC 1.1
    nodata = raster.get("nodata", band.get("nodata", fields.get("nodata")))
    has_nodata = nodata is not None and not (isinstance(nodata, str) or (isinstance(nodata, float) and math.isnan(nodata)))
    return BandHints(
        name=key,
        common_name=eo.get("common_name") or band.get("eo:common_name"),
        nodata=(int(nodata) if float(nodata).is_integer() else float(nodata)) if has_nodata else None,
        has_nodata=has_nodata,
        scale=_number(raster.get("scale", band.get("raster:scale"))),
        offset=_number(raster.get("offset", band.get("raster:offset"))),
        units=raster.get("unit") or band.get("unit"),
    )


def _first(value: Any) -> Mapping[str, Any]:
    return value[0] if isinstance(value, list) and value and isinstance(value[0], Mapping) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

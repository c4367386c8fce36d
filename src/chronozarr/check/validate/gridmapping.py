"""The optional CF grid mapping of each level (`spatial_ref`, spec 3.3's CRS attributes for CF tools).

Accepted when present and never required: a store without it (written before it existed) is as
valid as one with it. When present it must be a well-formed 0-d Zarr array, and what it says must
agree with the store: an array naming a missing grid mapping, or one describing another CRS than
`chronozarr.crs`, would give rioxarray or titiler a wrong or no CRS, so both are reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...format.metadata import GRID_MAPPING, crs_code
from ..context import Context, doc_key
from .arraydocs import attributes, check_node, layout


def check_grid_mapping(ctx: Context) -> None:
    consolidated = _consolidated_nodes(ctx.root)
    for level in ctx.levels:
        node = f"{level.path}/{GRID_MAPPING}"
        users = _users(ctx, level.path)
        if not users and node not in consolidated and not _on_disk(ctx, node):
            continue  # a store without a grid mapping: nothing to look at, and no request made
        doc = ctx.doc(node, "3.3")
        if doc is None:
            if ctx.missing(node):
                for user in users:
                    ctx.report.warn("3.3", f"{doc_key(user)}:attributes.grid_mapping", f"names {GRID_MAPPING!r}, which level {level.path} does not have")
            continue
        if not check_node(ctx, node, doc, [], "3.3") or layout(ctx, node, doc, "3.3") is None:
            continue
        if doc.get("shape") != []:
            ctx.report.fail("3.3", doc_key(node), f"a grid mapping is a 0-d array; shape is {doc.get('shape')!r}")
        _check_crs(ctx, node, attributes(doc))


def _users(ctx: Context, level_path: str) -> list[str]:
    """The level's data, mask and coverage arrays whose grid_mapping names spatial_ref."""
    nodes = [f"{level_path}/{name}" for name in (ctx.variable, "mask", "coverage")]
    return [n for n in nodes if n in ctx.arrays and attributes(ctx.arrays[n].doc).get("grid_mapping") == GRID_MAPPING]


def _check_crs(ctx: Context, node: str, attrs: Mapping[str, Any]) -> None:
    key = f"{doc_key(node)}:attributes.crs_wkt"
    wkt = attrs.get("crs_wkt")
    if not isinstance(wkt, str) or not wkt:
        ctx.report.warn("3.3", key, "is missing: CF tools find no CRS in this grid mapping")
        return
    expected = crs_code(ctx.crs) if isinstance(ctx.crs, str) else None
    if expected is None:
        return
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    try:
        found = CRS.from_wkt(wkt).to_epsg()
    except CRSError as exc:
        ctx.report.warn("3.3", key, f"is not a WKT pyproj reads ({exc})")
        return
    if found is None:
        ctx.report.warn("3.3", key, f"describes a CRS without an EPSG code; chronozarr.crs is {ctx.crs}")
    elif found != expected:
        ctx.report.fail("3.3", key, f"describes EPSG:{found}, but chronozarr.crs is {ctx.crs}: CF tools would place the store wrongly")


def _consolidated_nodes(root: Any) -> set[str]:
    meta = root.get("consolidated_metadata") if isinstance(root, Mapping) else None
    nodes = meta.get("metadata") if isinstance(meta, Mapping) else None
    return set(nodes) if isinstance(nodes, Mapping) else set()


def _on_disk(ctx: Context, node: str) -> bool:
    return ctx.local_root is not None and (ctx.local_root / node / "zarr.json").is_file()

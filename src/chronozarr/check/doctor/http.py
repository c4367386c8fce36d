"""Checks 1-11 of `doctor` and the two extras: how the host answers for the store (docs/hosting.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...errors import TimeUp
from ...format.array_doc import declares_sharding
from ...format.caching import chronozarr_block
from ...format.geometry import cell_key, parse_shard_id
from ...format.zarrjson import parse_json
from ...store.http import DEFAULT_TIMEOUT
from .caching import cache_control_finding, edge_cache_finding
from .client import DEFAULT_TOTAL_TIMEOUT, TRANSIENT, Answer, DoctorClient, content_range
from .decode import decode_checks, validate_check
from .plain import plain_http
from .report import DoctorReport
from .source import HostTolerantStore

PROBE_RANGE = 100  # bytes of the bounded range read, as in the guide's curl recipe
SUFFIX = 16  # bytes of the suffix range read
WHOLE_READ = 16 << 20  # the content-length check reads the probe object whole up to this size
EXTRA = "+"  # section of the checks the checklist leaves to curl

# The last path segment ends in a version or a date: chronozarr-3, v2, 2026-09, 20260930.


class HttpDoctor:
    """Runs the checks on the store at one URL, with the Origin of a page that would read it."""

    def __init__(self, url: str, origin: str, timeout: float = DEFAULT_TIMEOUT, total_timeout: float = DEFAULT_TOTAL_TIMEOUT) -> None:
        parts = urlsplit(url)
        self.url = url
        self.base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
        self.origin = origin
        self.report = DoctorReport(url)
        # a signed URL's token (the query) goes with every request
        self.client = DoctorClient(self.base, parts.query, origin, timeout, total_timeout)

    def key_url(self, key: str) -> str:
        return self.client.key_url(key)

    def request(self, method: str, key: str, headers: Mapping[str, str] | None = None, limit: int = 1 << 20) -> Answer:
        """One request with the Origin header; reads at most `limit` bytes of the body."""
        return self.client.request(method, key, headers, limit)

    def run(self) -> DoctorReport:
        try:
            self._run()
        except TimeUp as exc:
            self.report.fail("1", "time limit", f"{exc}: the checks that were left did not run; raise --total-timeout for a slow host")
        else:
            if self.client.expired():  # check 12 reads through a source that fails fast once time is up
                self.report.fail("1", "time limit", (
                    f"doctor's time limit of {self.client.total_timeout:g} s was spent: the reads after it failed without being sent"
                ))
        finally:
            self.client.close()
        self._transport_findings()
        return self.report

    def _transport_findings(self) -> None:
        """One finding for each way requests failed: timeouts, cut bodies, redirect loops, ..."""
        for kind, problem in self.client.problems.items():
            more = f", and {problem.count - 1} more request(s)" if problem.count > 1 else ""
            detail = f"{problem.message} ({problem.key}{more})"
            if kind == TRANSIENT:
                self.report.warn(EXTRA, kind, f"{detail}: readers retry, at the cost of a round trip each")
            else:
                self.report.fail(EXTRA, kind, detail)

    # -- the checks, in the checklist's order ---------------------------------------------------

    def _run(self) -> None:
        r = self.report
        root = self.request("GET", "zarr.json", limit=256 << 20)
        doc = _json(root.body) if root.status == 200 else None
        block = chronozarr_block(doc)
        if root.status != 200:
            r.fail("1", "root zarr.json", f"{root.what}: no store here, or an upload that has not finished (the root is written last)")
            return
        if block is None:
            kind = "not JSON" if doc is None else "a JSON document without a chronozarr attribute"
            r.fail("1", "root zarr.json", f"200, but {kind}: not a chronozarr store")
            return
        times = block.get("times")
        n_time = len(times) if isinstance(times, list) else 0
        r.passed("1", "root zarr.json", f"200, chronozarr {block.get('spec_version')} group, {n_time} timesteps")
        legacy_tile_size(r, doc)
        self._cors("CORS on zarr.json", root)
        meta = doc.get("consolidated_metadata") if isinstance(doc, dict) else None
        consolidated = meta.get("metadata") if isinstance(meta, dict) else None
        consolidated = consolidated if isinstance(consolidated, dict) else None
        if consolidated:
            r.passed("3", "consolidated metadata", f"{len(consolidated)} nodes in the root zarr.json")
        else:
            r.warn("3", "consolidated metadata", "absent: readers fetch every array's zarr.json (one request each)")

        level0, variable = _level0_data(block)
        array_path = f"{level0}/{variable}"
        array_doc = (consolidated or {}).get(array_path) or _json(self.request("GET", f"{array_path}/zarr.json").body)
        sharded = declares_sharding(array_doc)
        has_shard_bytes = bool(block.get("shard_bytes"))
        layout = "sharded" if sharded else "unsharded"

        key, ranged = self._probe(array_path, block)
        if key is None:
            r.fail("4", f"byte range on {array_path}/c/0/0/0/0", f"no chunk or shard object of level 0 found to probe ({ranged.what} for every one tried)")
        else:
            self._byte_range(key, ranged, sharded, layout)
            self._cors(f"CORS on byte range {key}", ranged)
            exposed = [h.strip().lower() for h in (ranged.header("Access-Control-Expose-Headers") or "").split(",")]
            if ranged.failure is not None:
                r.fail("5", "CORS expose Content-Range", f"not checked: {ranged.failure}")
            elif "content-range" in exposed or "*" in exposed:
                r.passed("5", "CORS expose Content-Range", f"Access-Control-Expose-Headers: {ranged.header('Access-Control-Expose-Headers')}")
            else:
                r.fail("5", "CORS expose Content-Range", (
                    "Content-Range is not in Access-Control-Expose-Headers: browsers hide it, and range reads cannot be checked"
                ))
            self._suffix_range(key, sharded, layout)
            self._preflight(key, sharded, layout)
            self._head(key, ranged, sharded, has_shard_bytes)
            cache_control_finding(self.report, self.base, key, ranged, block, {array_path: array_doc} if isinstance(array_doc, dict) else {})
            tao = ranged.header("Timing-Allow-Origin")
            r.info("10", "timing-allow-origin", (
                f"Timing-Allow-Origin: {tao}" if tao else "not sent: in-page benchmarks see transferSize 0 and count bytes from Content-Length"
            ))
            edge_cache_finding(self.report, ranged)
            self._no_content_encoding(key)
            self._content_length(key, ranged)
        absent = self._absent_key(array_path)
        source = HostTolerantStore(self.url, self.client, absent)
        validate_check(r, source)
        decode_checks(r, source, plain_reader=lambda meta: plain_http(self.client, meta))

    def _cors(self, name: str, answer: Answer) -> None:
        allowed = answer.header("Access-Control-Allow-Origin")
        if answer.failure is not None:
            self.report.fail("2", name, f"not checked: {answer.failure}")
        elif allowed in ("*", self.origin):
            self.report.passed("2", name, f"Access-Control-Allow-Origin: {allowed}")
        else:
            got = f"Access-Control-Allow-Origin: {allowed}" if allowed else "no Access-Control-Allow-Origin"
            self.report.fail("2", name, f"{got}: a page on {self.origin} cannot read the store")

    def _probe(self, array_path: str, block: Mapping[str, Any]) -> tuple[str | None, Answer]:
        """The object the HTTP checks read (level 0, cell (0, 0), timestep or shard 0), with the
        answer to its bounded range; another object of level 0 when that one is absent."""
        candidates = [cell_key(array_path, 0, 0, 0, has_band=True)]
        shard_bytes = block.get("shard_bytes")
        listed = shard_bytes.get(array_path.split("/")[0]) if isinstance(shard_bytes, dict) else None
        listed = listed if isinstance(listed, dict) else {}
        cells = [parse_shard_id(str(k)) for k in list(listed)[:4]]
        candidates += [cell_key(array_path, *cell, has_band=True) for cell in cells if cell is not None]
        candidates += [cell_key(array_path, 0, r, c, has_band=True) for r, c in ((0, 1), (1, 0), (1, 1))]
        answers = []
        for key in dict.fromkeys(candidates):
            answers.append(self.request("GET", key, {"Range": f"bytes=0-{PROBE_RANGE - 1}"}, limit=PROBE_RANGE * 2))
            if answers[-1].status not in (404, 410, 403):
                return key, answers[-1]
        return None, answers[-1]  # candidates is never empty: the first is always tried

    def _byte_range(self, key: str, answer: Answer, sharded: bool, layout: str) -> None:
        r, name = self.report, f"byte range on {key}"
        span = content_range(answer.header("Content-Range"))
        if answer.status == 206 and span is not None:
            first, last, total = span
            expected_last = PROBE_RANGE - 1 if total is None else min(PROBE_RANGE - 1, total - 1)
            if first == 0 and last == expected_last and len(answer.body) == last + 1:
                r.passed("4", name, f"206, Content-Range: {answer.header('Content-Range')}")
                return
            r.fail("4", name, (
                f"206 with Content-Range: {answer.header('Content-Range')} and {len(answer.body)} bytes for bytes=0-{PROBE_RANGE - 1}: the wrong bytes"
            ))
        elif answer.status == 200:
            message = "200 with the whole object: the host ignores Range"
            if sharded:
                r.fail("4", name, f"{message}; a sharded store reads one chunk of a shard with a range")
            else:
                r.warn("4", name, f"{message}; an unsharded store reads whole chunks and still works")
        elif answer.status == 206:
            r.fail("4", name, f"206 without a valid Content-Range (got {answer.header('Content-Range')!r})")
        else:
            r.fail("4", name, f"{answer.what} to Range: bytes=0-{PROBE_RANGE - 1}")

    def _suffix_range(self, key: str, sharded: bool, layout: str) -> None:
        r, name = self.report, "suffix range"
        answer = self.request("GET", key, {"Range": f"bytes=-{SUFFIX}"}, limit=SUFFIX * 4)
        span = content_range(answer.header("Content-Range"))
        first, last, total = span if span is not None else (0, 0, None)
        if answer.status == 206 and total is not None:
            if last == total - 1 and first == max(0, total - SUFFIX) and len(answer.body) == last - first + 1:
                r.passed("6", name, f"206, Content-Range: {answer.header('Content-Range')}")
                return
            problem = f"206 with Content-Range: {answer.header('Content-Range')}: not the last {SUFFIX} bytes"
        elif answer.status == 200:
            problem = "200 with the whole object: suffix ranges are ignored"
        else:
            problem = f"{answer.what} to Range: bytes=-{SUFFIX}"
        if sharded:
            r.fail("6", name, f"{problem}; readers without shard_bytes fetch the shard index this way")
        else:
            r.info("6", name, f"{problem}; an unsharded store has no shard index, so nothing needs it")

    def _preflight(self, key: str, sharded: bool, layout: str) -> None:
        r, name = self.report, "CORS preflight"
        answer = self.request(
            "OPTIONS", key, {"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "range"}, limit=4096
        )
        allowed = [h.strip().lower() for h in (answer.header("Access-Control-Allow-Headers") or "").split(",")]
        allow_origin = answer.header("Access-Control-Allow-Origin")
        if answer.status in (200, 204) and ("range" in allowed or "*" in allowed) and allow_origin in ("*", self.origin):
            r.passed("7", name, f"{answer.status}, Access-Control-Allow-Headers: {answer.header('Access-Control-Allow-Headers')}")
            return
        if answer.status not in (200, 204):
            problem = f"OPTIONS got {answer.what}"
        elif allow_origin not in ("*", self.origin):
            problem = "the preflight answer has no Access-Control-Allow-Origin"
        else:
            problem = "Access-Control-Allow-Headers does not allow Range"
        if sharded:
            r.warn("7", name, f"{problem}: browsers cannot send suffix ranges (readers with shard_bytes need none)")
        else:
            r.info("7", name, f"{problem}: an unsharded store sends no Range, so browsers never preflight it")

    def _head(self, key: str, ranged: Answer, sharded: bool, has_shard_bytes: bool) -> None:
        r, name = self.report, "HEAD"
        answer = self.request("HEAD", key)
        length = answer.header("Content-Length")
        span = content_range(ranged.header("Content-Range"))
        total = span[2] if span else None
        problems = []
        if answer.status != 200:
            problems.append(answer.what)
        else:
            if length is None:
                problems.append("no Content-Length")
            elif total is not None and length.strip() != str(total):
                problems.append(f"Content-Length {length} but the object is {total} bytes")
            if answer.header("Access-Control-Allow-Origin") not in ("*", self.origin):
                problems.append("no CORS headers")
        if not problems:
            r.passed("8", name, f"200, Content-Length: {length}")
        elif sharded and not has_shard_bytes:
            r.fail("8", name, f"{', '.join(problems)}: readers learn a shard's length with HEAD when the root lists no shard_bytes")
        else:
            r.warn("8", name, f"{', '.join(problems)}: readers that size objects with HEAD (zarrita) fail")

    def _no_content_encoding(self, key: str) -> None:
        answer = self.request("GET", key, {"Accept-Encoding": "gzip, br", "Range": f"bytes=0-{PROBE_RANGE - 1}"}, limit=1 << 20)
        encoding = answer.header("Content-Encoding")
        name = "no content-encoding"
        if encoding is None or encoding.strip().lower() == "identity":
            self.report.passed(EXTRA, name, "chunks are sent as stored when the client offers gzip, br")
        else:
            self.report.fail(EXTRA, name, (
                f"Content-Encoding: {encoding} on {key}: shard offsets and ranges apply to the stored bytes; turn compression off for the store"
            ))

    def _content_length(self, key: str, ranged: Answer) -> None:
        """A whole GET of the probe object brings as many bytes as its Content-Length says and
        the Content-Range total gave: a host that lies about lengths breaks every read."""
        name = "content-length"
        span = content_range(ranged.header("Content-Range"))
        total = span[2] if span else None
        whole = ranged.header("Content-Length") if ranged.status == 200 else None  # a range answered whole
        if total is None and whole is not None and whole.strip().isdigit():
            total = int(whole)
        if total is None or total > WHOLE_READ:
            self.report.info(EXTRA, name, f"not checked: {key} is larger than {WHOLE_READ >> 20} MiB, or its length is unknown")
            return
        answer = self.request("GET", key, {"Accept-Encoding": "identity"}, limit=WHOLE_READ)
        if answer.failure is not None:
            self.report.fail(EXTRA, name, f"a GET of {key} got no whole answer: {answer.failure}")
            return
        declared = answer.header("Content-Length")
        if answer.status == 200 and declared is not None and declared.strip() == str(total) and len(answer.body) == total:
            self.report.passed(EXTRA, name, f"a GET of {key} brings {total} bytes, as Content-Length and Content-Range say")
        elif answer.status != 200:
            self.report.fail(EXTRA, name, f"{answer.what} to a GET of {key}")
        else:
            self.report.fail(
                EXTRA, name,
                f"a GET of {key} says Content-Length {declared} and brought {len(answer.body)} bytes, but the object has {total} "
                "(Content-Range): the host's lengths are wrong, so readers get cut or corrupt objects",
            )

    def _absent_key(self, array_path: str) -> Answer:
        key = cell_key(array_path, 999999999, 0, 0, has_band=True)
        answer = self.request("GET", key, limit=1 << 16)
        name = "absent key 404"
        if answer.status in (404, 410):
            self.report.passed(EXTRA, name, f"{answer.status} for {key}")
        elif answer.status == 200:
            kind = answer.header("Content-Type") or "a body"
            self.report.fail(EXTRA, name, f"200 ({kind}) for {key}: a fallback page makes every missing shard look present")
        else:
            self.report.fail(EXTRA, name, f"{answer.what} for {key}: readers decode a 404 as fill and treat anything else as an error")
        return answer



def legacy_tile_size(report: DoctorReport, root: Any) -> None:
    """One info line for a root still carrying `pixels_per_tile` (spec 3.4: no longer written, ignored
    by readers): zarr-layer 0.10 takes it for a slippy-map pyramid and draws the store off the view."""
    scales = root.get("attributes", {}).get("multiscales") if isinstance(root, dict) else None
    datasets = scales[0].get("datasets") if isinstance(scales, list) and scales and isinstance(scales[0], dict) else None
    if isinstance(datasets, list) and any(isinstance(d, dict) and "pixels_per_tile" in d for d in datasets):
        report.info("1", "pixels_per_tile", (
            "multiscales datasets still carry pixels_per_tile, which readers ignore; zarr-layer reads it as a web-map "
            "tile pyramid and draws the store elsewhere unless given crs and bounds: upload a root zarr.json without it"
        ))


def _json(raw: bytes) -> Any:
    try:
        return parse_json(raw)
    except ValueError:
        return None


def _level0_data(block: Mapping[str, Any]) -> tuple[str, str]:
    """Level 0's path and the data variable's name as the block states them; a field of another
    type (a hostile or broken block) gives the spec's defaults, and validate reports the field."""
    levels, variable = block.get("levels"), block.get("variable")
    first = levels[0] if isinstance(levels, list) and levels else None
    path = first.get("path") if isinstance(first, Mapping) else None
    return (path if isinstance(path, str) and path else "0"), (variable if isinstance(variable, str) and variable else "data")

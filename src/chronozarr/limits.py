"""The limits and vocabularies the Python and JS readers share, from the one file both load:
`js/src/reader/limits.json` (the JS reader imports it in `js/src/reader/limits.js`; the wheel
carries it with the browser apps, as `chronozarr/web/src/reader/limits.json`). A leaf like
errors.py, so format/ and store/ both read it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import MissingFileError

_PACKAGE = Path(__file__).resolve().parent
# The installed package's copy, else the checkout's own (an editable install, a test run).
CANDIDATES = (_PACKAGE / "web" / "src" / "reader" / "limits.json", _PACKAGE.parents[1] / "js" / "src" / "reader" / "limits.json")


def _load() -> dict[str, Any]:
    for path in CANDIDATES:
        if path.is_file():
            # the package's own file, read before format/zarrjson (whose depth limit it holds) exists
            loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return loaded
    raise MissingFileError(f"chronozarr's limits.json is missing (looked for {' and '.join(map(str, CANDIDATES))}): reinstall chronozarr")


_LIMITS = _load()

MAX_JSON_DEPTH: int = _LIMITS["json_depth"]
DATA_TYPES: tuple[str, ...] = tuple(_LIMITS["data_types"])
STAR_DELTA_DATA_TYPES: tuple[str, ...] = tuple(_LIMITS["star_delta_data_types"])
CODECS: tuple[str, ...] = tuple(_LIMITS["codecs"])
BLOSC_CNAMES: tuple[str, ...] = tuple(_LIMITS["blosc_cnames"])
BLOSC_SHUFFLES: tuple[str, ...] = tuple(_LIMITS["blosc_shuffles"])
SHARD_INDEX_ENTRY_BYTES: int = _LIMITS["shard_index_entry_bytes"]
SHARD_INDEX_CHECKSUM_BYTES: int = _LIMITS["shard_index_checksum_bytes"]
SHARD_INDEX_CACHE_BYTES: int = _LIMITS["shard_index_cache_bytes"]
REQUEST_TIMEOUT_SECONDS: float = float(_LIMITS["request_timeout_seconds"])
CALL_DEADLINE_SECONDS: float = float(_LIMITS["call_deadline_seconds"])

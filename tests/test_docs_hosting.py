"""The CORS settings docs/hosting.md gives for each host allow what the readers send and expose
what they must see: any origin, GET and HEAD, the Range request header, and every header the
local server exposes (Content-Range first: doctor's checks 2, 5 and 7). Each host has its own
format, so each block is read in its own format's terms."""

from __future__ import annotations

import json
import re
import shlex
from itertools import takewhile
from pathlib import Path

from chronozarr.serve.handler import EXPOSE_HEADERS

DOC = (Path(__file__).resolve().parents[1] / "docs" / "hosting.md").read_text()
EXPOSED = {h.strip().lower() for h in EXPOSE_HEADERS.split(",")}


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC, flags=re.S)


def _rule(origins: list[str], methods: list[str], allowed: list[str], exposed: list[str]) -> None:
    assert "*" in origins
    assert {"GET", "HEAD"} <= {m.upper() for m in methods}
    assert "range" in {h.lower() for h in allowed}
    assert EXPOSED <= {h.lower() for h in exposed}, sorted(EXPOSED - {h.lower() for h in exposed})


def _items(block: dict) -> list[str]:
    assert block["Quantity"] == len(block["Items"])  # CloudFront refuses a count that disagrees
    return block["Items"]


def test_every_cors_document_allows_ranges_and_exposes_content_range() -> None:
    seen = set()
    for text in _blocks("json"):
        doc = json.loads(text)
        if isinstance(doc, list):  # GCS: one responseHeader list, allowed and exposed at once
            for rule in doc:
                _rule(rule["origin"], rule["method"], rule["responseHeader"], rule["responseHeader"])
            seen.add("gcs")
        elif "CORSRules" in doc:  # S3
            for rule in doc["CORSRules"]:
                _rule(rule["AllowedOrigins"], rule["AllowedMethods"], rule["AllowedHeaders"], rule["ExposeHeaders"])
            seen.add("s3")
        elif "rules" in doc:  # wrangler's R2 format
            for rule in doc["rules"]:
                allowed = rule["allowed"]
                _rule(allowed["origins"], allowed["methods"], allowed["headers"], rule["exposeHeaders"])
            seen.add("r2")
        elif "CorsConfig" in doc:  # a CloudFront response headers policy
            cors = doc["CorsConfig"]
            _rule(_items(cors["AccessControlAllowOrigins"]), _items(cors["AccessControlAllowMethods"]),
                  _items(cors["AccessControlAllowHeaders"]), _items(cors["AccessControlExposeHeaders"]))
            assert cors["OriginOverride"] is True
            headers = {h["Header"]: h["Value"] for h in _items(doc["CustomHeadersConfig"])}
            assert headers == {"Timing-Allow-Origin": "*"}
            seen.add("cloudfront")
    assert seen == {"gcs", "s3", "r2", "cloudfront"}


def test_the_azure_cors_line_allows_ranges_and_exposes_content_range() -> None:
    line = next(b for b in _blocks("bash") if "az storage cors add" in b)
    words = shlex.split(line.split("az storage cors add", 1)[1].split("\n" + "chronozarr", 1)[0].replace("\\\n", " "))

    def values(flag: str) -> list[str]:
        return list(takewhile(lambda w: not w.startswith("--"), words[words.index(flag) + 1 :]))

    _rule(values("--origins"), values("--methods"), values("--allowed-headers"), values("--exposed-headers"))

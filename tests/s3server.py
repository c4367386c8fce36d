"""A real S3 API on 127.0.0.1: moto's server app, with every request logged for request counts.

Two answers AWS gives that moto does not simulate are added in front of moto, in AWS's words and
status codes: a request signed for another region than the bucket's (400
AuthorizationHeaderMalformed) and an expired session token (400 ExpiredToken). Everything else is
moto's own answer.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "region_name": "us-east-1"}
_SCOPE_REGION = re.compile(r"Credential=[^/]+/\d{8}/([^/]+)/s3/")


@dataclass(frozen=True)
class S3Request:
    method: str
    path: str
    range: str | None
    status: int


class S3Server:
    """moto on 127.0.0.1 (a free port), as a context manager; `requests` logs what it answered."""

    def __init__(self) -> None:
        self.requests: list[S3Request] = []
        self.regions: dict[str, str] = {}
        self.expired_tokens: set[str] = set()
        self.latency = 0.0  # seconds added to each answer, to see how many requests overlap
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> S3Server:
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
        from werkzeug.serving import make_server

        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        app = DomainDispatcherApplication(create_backend_app)
        self._server = make_server("127.0.0.1", 0, self._wrap(app), True, request_handler=MotoRequestHandler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        assert self._thread is not None
        self._thread.join()

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def client(self) -> Any:
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, **CREDENTIALS)

    def create_bucket(self, name: str, region: str = "us-east-1") -> None:
        options = {} if region == "us-east-1" else {"CreateBucketConfiguration": {"LocationConstraint": region}}
        self.client().create_bucket(Bucket=name, **options)
        self.regions[name] = region

    def clear_log(self) -> None:
        with self._lock:
            self.requests.clear()
            self.max_in_flight = 0

    def log(self, bucket: str) -> list[S3Request]:
        """The requests for objects of `bucket`, in the order they were answered."""
        with self._lock:
            return [r for r in self.requests if r.path.startswith(f"/{bucket}/")]

    def _wrap(self, app: Any) -> Any:
        def middleware(environ: dict[str, Any], start_response: Any) -> Any:
            with self._lock:
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self.latency:
                time.sleep(self.latency)
            refusal = self._refusal(environ)
            status_seen: list[int] = []

            def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
                status_seen.append(int(status.split(" ", 1)[0]))
                return start_response(status, headers, exc_info)

            if refusal is not None:
                body = refusal.encode()
                start("400 Bad Request", [("Content-Type", "application/xml"), ("Content-Length", str(len(body)))])
                result: Any = [body]
            else:
                result = app(environ, start)
            with self._lock:
                self.in_flight -= 1
                self.requests.append(
                    S3Request(environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""), environ.get("HTTP_RANGE"), status_seen[0])
                )
            return result

        return middleware

    def _refusal(self, environ: dict[str, Any]) -> str | None:
        """AWS's answer to a request moto would accept but AWS refuses, else None."""
        token = environ.get("HTTP_X_AMZ_SECURITY_TOKEN")
        if token and token in self.expired_tokens:
            return _error("ExpiredToken", "The provided token has expired.")
        bucket = environ.get("PATH_INFO", "/").lstrip("/").split("/", 1)[0]
        scope = _SCOPE_REGION.search(environ.get("HTTP_AUTHORIZATION", ""))
        expected = self.regions.get(bucket)
        if scope and expected and scope.group(1) != expected:
            return _error(
                "AuthorizationHeaderMalformed",
                f"The authorization header is malformed; the region '{scope.group(1)}' is wrong; expecting '{expected}'",
                f"<Region>{expected}</Region>",
            )
        return None


def _error(code: str, message: str, extra: str = "") -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{message}</Message>{extra}<RequestId>0</RequestId></Error>'

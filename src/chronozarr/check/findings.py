"""The validator's report: one finding per violated rule, with the spec section that states it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import SettingError

FAIL = "fail"
WARN = "warn"
INFO = "info"
SEVERITIES = (FAIL, WARN, INFO)
OK = "ok"  # a check that passed: doctor reports those too, validate never does
LEVELS = (*SEVERITIES, OK)


@dataclass(frozen=True)
class Finding:
    """One observation: `fail` breaks a MUST, `warn` a SHOULD, `info` is context only, `ok` passed."""

    section: str
    severity: str
    key: str
    message: str

    def __post_init__(self) -> None:
        if self.severity not in LEVELS:
            raise SettingError(f"severity must be one of {LEVELS}, got {self.severity!r}")

    def line(self) -> str:
        """`FAIL 7.3 0/data/c/0/0/0/0: message`, the CLI's one-line form."""
        return f"{self.severity.upper()} {self.section} {self.key}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {"section": self.section, "severity": self.severity, "key": self.key, "message": self.message}


@dataclass
class Report:
    """Findings about one store, in the order they were found."""

    store: str
    findings: list[Finding] = field(default_factory=list)

    def add(self, section: str, severity: str, key: str, message: str) -> None:
        self.findings.append(Finding(section, severity, key, message))

    def fail(self, section: str, key: str, message: str) -> None:
        self.add(section, FAIL, key, message)

    def warn(self, section: str, key: str, message: str) -> None:
        self.add(section, WARN, key, message)

    def info(self, section: str, key: str, message: str) -> None:
        self.add(section, INFO, key, message)

    @property
    def ok(self) -> bool:
        """True when no MUST is broken (warnings and infos do not count)."""
        return not any(f.severity == FAIL for f in self.findings)

    @property
    def fails(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == FAIL]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == WARN]

    def sections(self, severity: str = FAIL) -> set[str]:
        return {f.section for f in self.findings if f.severity == severity}

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    def summary(self) -> str:
        counts = {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}
        verdict = "valid" if self.ok else "INVALID"
        return f"{self.store}: {verdict} ({counts[FAIL]} fail, {counts[WARN]} warn, {counts[INFO]} info)"

    def to_text(self) -> str:
        return "\n".join([*(f.line() for f in self.findings), self.summary()])

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "ok": self.ok,
            "findings": [f.to_dict() for f in self.findings],
        }

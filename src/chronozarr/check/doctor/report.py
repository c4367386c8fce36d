"""What `doctor` found: one line per check, passed ones included, as text or JSON."""

from __future__ import annotations

from typing import Any

from ..findings import FAIL, INFO, OK, WARN, Report

STATUS_WORD = {OK: "ok", FAIL: "FAIL", WARN: "warn", INFO: "info"}


class DoctorReport(Report):
    """The checks doctor ran, passed ones included, in the order it ran them."""

    def passed(self, section: str, key: str, message: str) -> None:
        self.add(section, OK, key, message)

    def counts(self) -> dict[str, int]:
        return {level: sum(f.severity == level for f in self.findings) for level in (OK, FAIL, WARN, INFO)}

    def summary(self) -> str:
        c = self.counts()
        verdict = "ready to serve" if self.ok else "NOT READY"
        return f"{self.store}: {verdict} ({c[OK]} ok, {c[FAIL]} fail, {c[WARN]} warn, {c[INFO]} info)"

    def to_text(self) -> str:
        lines = [f"{STATUS_WORD[f.severity]:<4} {f.key}: {f.message}" for f in self.findings]
        return "\n".join([*lines, self.summary()])

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.store,
            "ok": self.ok,
            "counts": self.counts(),
            "checks": [{"check": f.key, "status": f.severity, "section": f.section, "detail": f.message} for f in self.findings],
        }

    def status_of(self, check: str) -> str | None:
        """The status of the first check whose name starts with `check` (tests and scripts)."""
        for f in self.findings:
            if f.key == check or f.key.startswith(check + " "):
                return f.severity
        return None

"""Conformance results and their JSON and human renderings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brainkeep.ops.response_schemas import PROTOCOL_NAME, PROTOCOL_VERSION

PASS, FAIL, SKIP = "pass", "fail", "skip"
_MARKS = {PASS: "✓", SKIP: "−", FAIL: "✗"}


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one check (a fixture case, a tools/list check, or the connection)."""

    name: str
    verb: str | None
    status: str  # pass | fail | skip
    detail: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "verb": self.verb, "status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class ConformanceReport:
    """Every result of one run against one target; ``ok`` iff nothing failed."""

    target: str
    marker: str
    results: tuple[CaseResult, ...]

    def _count(self, status: str) -> int:
        return sum(1 for result in self.results if result.status == status)

    @property
    def passed(self) -> int:
        return self._count(PASS)

    @property
    def failed(self) -> int:
        return self._count(FAIL)

    @property
    def skipped(self) -> int:
        return self._count(SKIP)

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def failures(self) -> list[CaseResult]:
        return [result for result in self.results if result.status == FAIL]

    def to_dict(self) -> dict[str, Any]:
        """The `protocol conformance --json` document."""
        return {
            "protocol_version": PROTOCOL_VERSION,
            "target": self.target,
            "marker": self.marker,
            "results": [result.to_dict() for result in self.results],
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "ok": self.ok,
        }

    def render(self) -> str:
        """Human output: one line per check, totals, then the verdict."""
        lines = [f"{PROTOCOL_NAME} v{PROTOCOL_VERSION} conformance — target: {self.target}"]
        for result in self.results:
            tail = f" — {result.detail}" if result.detail else ""
            lines.append(f"  {_MARKS.get(result.status, '?')} {result.name}{tail}")
        lines.append(f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped")
        lines.append("CONFORMANT" if self.ok else "NOT CONFORMANT")
        return "\n".join(lines)

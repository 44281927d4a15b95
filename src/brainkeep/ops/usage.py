"""Local verb-usage log (usage.jsonl), its stats, TTHW and the doctor line.

The dispatcher appends one JSON line per verb call. The log is local only and
never uploaded; it is stats-grade, not an audit trail (that is the event
chain). So writing favours never disturbing the call over completeness:
`UsageLog.record` never raises, and a lock-free rotation racing another
writer may drop a line.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from brainkeep.core.clock import parse_ts

log = logging.getLogger("brainkeep.usage")

ROTATE_BYTES = 10 * 1024 * 1024
DEFAULT_DAYS = 30
PRIVACY_NOTE = "local JSONL only — never uploaded"

# Key order of a written line; the optional tail is omitted when None.
_REQUIRED_KEYS = (
    "ts",
    "brain_id",
    "verb",
    "surface",
    "transport",
    "remote",
    "ok",
    "latency_ms",
    "source_id",
)
_OPTIONAL_KEYS = ("token_name", "budget_dropped", "entity_found")


def usage_timestamp(moment: datetime | None = None) -> str:
    """ISO 8601 UTC with milliseconds and a Z, the `ts` shape of a usage line."""
    moment = (moment or datetime.now(UTC)).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass(frozen=True)
class UsageEvent:
    """One verb call as the dispatcher saw it.

    ``token_name`` is the bearer token's NAME for HTTP callers — never the
    secret. ``budget_dropped`` is the result's ``dropped_count`` when the call
    succeeded with a budget; ``entity_found`` is set for successful `entity`
    calls only. `outcome_fields` derives both from a result.
    """

    ts: str
    brain_id: str
    verb: str
    surface: str
    transport: str  # stdio | http | cli
    remote: bool
    ok: bool
    latency_ms: int
    source_id: str
    token_name: str | None = None
    budget_dropped: int | None = None
    entity_found: bool | None = None

    def to_json(self) -> str:
        """One compact JSON line (no trailing newline), keys in a stable order."""
        data: dict[str, Any] = {key: getattr(self, key) for key in _REQUIRED_KEYS}
        for key in _OPTIONAL_KEYS:
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def outcome_fields(verb: str, ok: bool, result: Mapping[str, Any] | None) -> dict[str, Any]:
    """``budget_dropped`` / ``entity_found`` for a verb result (kwargs for `UsageEvent`)."""
    fields: dict[str, Any] = {"budget_dropped": None, "entity_found": None}
    if not ok or result is None:
        return fields
    dropped = result.get("dropped_count")
    if isinstance(dropped, int) and not isinstance(dropped, bool):
        fields["budget_dropped"] = dropped
    if verb == "entity" and isinstance(result.get("found"), bool):
        fields["entity_found"] = result["found"]
    return fields


class UsageLog:
    """Append-only JSONL usage log at ``path`` with one-step size rotation."""

    def __init__(self, path: Path, *, rotate_bytes: int = ROTATE_BYTES) -> None:
        self.path = Path(path)
        self.rotate_bytes = rotate_bytes
        self._warned = False

    @property
    def rotated_path(self) -> Path:
        return self.path.with_name(self.path.name + ".1")

    def record(self, event: UsageEvent) -> None:
        """Append ``event`` as one line. Never raises: usage stats must not break a verb."""
        try:
            line = (event.to_json() + "\n").encode("utf-8")
            # Every verb call pays for this, so the common case is four system
            # calls (open, fstat, write, close): no mkdir or path stat per line.
            fd = self._open()
            try:
                if os.fstat(fd).st_size > self.rotate_bytes:
                    os.close(fd)
                    fd = -1
                    self._rotate_if_full()
                    fd = self._open()
                # O_APPEND + a single write() of one short line is atomic on POSIX,
                # so concurrent servers on one brain never interleave partial lines.
                os.write(fd, line)
            finally:
                if fd >= 0:
                    os.close(fd)
        except Exception as exc:  # noqa: BLE001 — fire-and-forget by contract
            # Once per log, so a full disk does not turn every verb into a stderr line.
            if not self._warned:
                self._warned = True
                log.warning("usage log %s not written (stats will miss calls): %s",
                            self.path, exc)

    def _open(self) -> int:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        try:
            return os.open(self.path, flags, 0o600)
        except FileNotFoundError:  # the brain folder's parent is gone or new
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.path, flags, 0o600)

    def _rotate_if_full(self) -> None:
        try:
            if self.path.stat().st_size > self.rotate_bytes:
                # Lock-free: a concurrent double rotation may lose lines; acceptable for stats.
                os.replace(self.path, self.rotated_path)
        except FileNotFoundError:
            return

    def exists(self) -> bool:
        return self.path.exists()

    def read(self, days: int | None = None, *, now: datetime | None = None) -> list[dict[str, Any]]:
        """Events of the current file, oldest first, optionally only the last ``days`` days.

        Blank and malformed lines, and lines without string ``verb``/``ts``, are
        skipped. A missing file reads as no events.

        Raises:
            OSError: the file exists but cannot be read.
        """
        if not self.path.exists():
            return []
        cutoff = None
        if days is not None:
            cutoff = (now or datetime.now(UTC)) - timedelta(days=days)
        events: list[dict[str, Any]] = []
        with self.path.open("r", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                event = _parse_line(line)
                if event is None:
                    continue
                if cutoff is not None and event["_at"] < cutoff:
                    continue
                del event["_at"]
                events.append(event)
        return events


def _parse_line(line: str) -> dict[str, Any] | None:
    if not line.strip():
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if not isinstance(data.get("verb"), str) or not isinstance(data.get("ts"), str):
        return None
    try:
        data["_at"] = parse_ts(data["ts"])
    except ValueError:
        return None
    return data


# ── stats ──────────────────────────────────────────────────────────────────


def format_duration(seconds: float) -> str:
    """Compact duration: ``42s``, ``5m``/``5m7s``, ``3h``/``3h20m``, ``4d``."""
    total = max(0, int(seconds))
    if total < 60:
        return f"{total}s"
    if total < 3600:
        minutes, secs = divmod(total, 60)
        return f"{minutes}m{secs}s" if secs else f"{minutes}m"
    if total < 48 * 3600:
        hours, rest = divmod(total, 3600)
        minutes = rest // 60
        return f"{hours}h{minutes}m" if minutes else f"{hours}h"
    return f"{total // 86400}d"


def _earliest(events: Iterable[Mapping[str, Any]]) -> tuple[datetime, str] | None:
    best: tuple[datetime, str] | None = None
    for event in events:
        try:
            moment = parse_ts(str(event["ts"]))
        except (KeyError, ValueError):
            continue
        if best is None or moment < best[0]:
            best = (moment, str(event["ts"]))
    return best


def usage_stats(
    events: list[dict[str, Any]],
    installed_at: str | None,
    days: int = DEFAULT_DAYS,
    *,
    sidecar: str = "",
    now: datetime | None = None,
) -> dict[str, Any]:
    """Aggregate usage events into the `protocol stats --json` document.

    Args:
        events: ALL events of the log (unwindowed): the per-verb numbers are
            windowed to ``days`` here, while time-to-hello-world needs the very
            first call ever recorded.
        installed_at: The brain's ``protocol_installed_at`` stamp, if any.
        days: Window for the per-verb aggregates.
        sidecar: The log path, echoed so users know where the data lives.
        now: Reference time for the window (tests pin it).
    """
    cutoff = (now or datetime.now(UTC)) - timedelta(days=days)
    by_verb: dict[str, dict[str, Any]] = {}
    latency_sum: dict[str, int] = {}
    total = 0
    for event in events:
        try:
            if parse_ts(str(event["ts"])) < cutoff:
                continue
        except (KeyError, ValueError):
            continue
        verb = str(event.get("verb"))
        row = by_verb.setdefault(
            verb, {"calls": 0, "errors": 0, "avg_latency_ms": 0, "budget_dropped_total": 0}
        )
        total += 1
        row["calls"] += 1
        if event.get("ok") is False:
            row["errors"] += 1
        latency = event.get("latency_ms")
        if isinstance(latency, int | float) and not isinstance(latency, bool):
            latency_sum[verb] = latency_sum.get(verb, 0) + int(latency)
        dropped = event.get("budget_dropped")
        if isinstance(dropped, int) and not isinstance(dropped, bool):
            row["budget_dropped_total"] += dropped
        if verb == "entity" and isinstance(event.get("entity_found"), bool):
            key = "found" if event["entity_found"] else "miss"
            row.setdefault("found", 0)
            row.setdefault("miss", 0)
            row[key] += 1
    for verb, row in by_verb.items():
        # Every row exists because of at least one call, so calls > 0 here.
        row["avg_latency_ms"] = round(latency_sum.get(verb, 0) / row["calls"])

    first = _earliest(events)
    tthw = None
    if first is not None and installed_at:
        try:
            delta = (first[0] - parse_ts(installed_at)).total_seconds()
        except ValueError:
            delta = -1.0
        if delta >= 0:
            tthw = format_duration(delta)
    return {
        "days": days,
        "total_calls": total,
        "by_verb": dict(sorted(by_verb.items(), key=lambda item: (-item[1]["calls"], item[0]))),
        "tthw_install_to_first_verb": tthw,
        "installed_at": installed_at,
        "first_verb_call": first[1] if first else None,
        "sidecar": sidecar,
        "privacy": PRIVACY_NOTE,
    }


def render_stats(stats: Mapping[str, Any]) -> str:
    """Human rendering of a `usage_stats` document."""
    lines = [f"MEMORY_VERBS usage — last {stats['days']} days ({PRIVACY_NOTE})"]
    by_verb: Mapping[str, Mapping[str, Any]] = stats["by_verb"]
    if not by_verb:
        lines.append("  no verb calls recorded yet")
    width = max([len(verb) for verb in by_verb] + [8])
    for verb, row in by_verb.items():
        extras = []
        if row["errors"]:
            extras.append(f"{row['errors']} error{'s' if row['errors'] != 1 else ''}")
        if row["budget_dropped_total"]:
            extras.append(f"{row['budget_dropped_total']} budget-dropped")
        if "found" in row:
            extras.append(f"hit {row['found']}/{row['found'] + row['miss']}")
        tail = f"  ({', '.join(extras)})" if extras else ""
        lines.append(
            f"  {verb:<{width}}  {row['calls']:>6} calls  {row['avg_latency_ms']:>5} ms avg{tail}"
        )
    if stats["tthw_install_to_first_verb"]:
        lines.append(f"TTHW: first verb call {stats['tthw_install_to_first_verb']} after install")
    elif stats["installed_at"] and not stats["first_verb_call"]:
        lines.append(f"TTHW: no verb calls since install ({stats['installed_at']})")
    lines.append(f"sidecar: {stats['sidecar']}")
    return "\n".join(lines)


# ── doctor ─────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class UsageHealth:
    """The `memory_verbs_usage` doctor check: ``ok`` False means a warning only."""

    ok: bool
    message: str


def usage_health(log: UsageLog, *, now: datetime | None = None) -> UsageHealth:
    """Summarize the last 30 days of verb calls for `brainkeep doctor` (fail-open)."""
    try:
        if not log.exists():
            return UsageHealth(True, "no verb calls recorded yet (appears on first verb call)")
        events = log.read(DEFAULT_DAYS, now=now)
        if not events:
            return UsageHealth(
                True, f"sidecar present; no verb calls in the last {DEFAULT_DAYS} days"
            )
        counts: dict[str, int] = {}
        for event in events:
            counts[event["verb"]] = counts.get(event["verb"], 0) + 1
        per_verb = " ".join(
            f"{verb}:{n}" for verb, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        last = events[-1]
        return UsageHealth(
            True,
            f"{len(events)} verb calls in {DEFAULT_DAYS}d ({per_verb}); last {last['verb']} "
            f"at {last['ts']} — {PRIVACY_NOTE}",
        )
    except Exception as exc:  # noqa: BLE001 — doctor must keep going; verbs are unaffected
        return UsageHealth(
            False,
            f"usage sidecar unreadable ({exc.__class__.__name__}); observability degraded, "
            "verbs unaffected",
        )


def doctor_usage_line(log: UsageLog, *, now: datetime | None = None) -> str:
    """The `memory_verbs_usage` line's text (see `usage_health` for the status)."""
    return usage_health(log, now=now).message

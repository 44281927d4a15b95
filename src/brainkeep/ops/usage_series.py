"""Usage over time: the local usage log cut into time buckets (the console's Usage page).

Reads what ``ops/usage.py`` writes (one JSON line per verb call) and
aggregates it: per-verb calls, error rate and p50/p99 latency per bucket, the
entity hit rate, and the top callers by token name; error and hit rates
also per caller kind (``caller_kind``), so a person's typos at the shell do
not read as an agent's failures. Pure functions over the
parsed lines, kept below the transports so any surface can show them; the
console's page module only reads the log and renders.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from brainkeep.core.clock import parse_ts
from brainkeep.ops.usage_scope import OAUTH_PREFIX

# Window choices the page offers, and the bucket width of each: ~24-30 points a chart.
WINDOWS: dict[int, timedelta] = {
    1: timedelta(hours=1),
    7: timedelta(hours=6),
    30: timedelta(days=1),
}
DEFAULT_WINDOW = 7
TOP_CALLERS = 10
# Who makes a call, by what the usage line records (``transport``, and the
# token name of OAuth callers), in the order the page lists them. The local
# console (``brainkeep ui``) calls as the CLI does; gRPC calls are not logged
# today (its servicer does not go through the dispatcher), but a line saying
# ``grpc`` has its own kind.
CALLER_KINDS: dict[str, str] = {
    "cli": "Local CLI (and brainkeep ui)",
    "stdio": "MCP over stdio",
    "http": "MCP over HTTP, token",
    "oauth": "MCP over HTTP, OAuth",
    "console": "Console, signed in",
    "grpc": "gRPC",
    "other": "Other",
}


def percentile(values: list[int], pct: float) -> int | None:
    """Nearest-rank percentile (``pct`` in 0..100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass(frozen=True)
class Bucket:
    """One time slice of the window."""

    start: datetime
    calls: dict[str, int]  # verb -> calls
    errors: int
    p50_ms: int | None
    p99_ms: int | None
    kind_calls: dict[str, int] = field(default_factory=dict)  # caller kind -> calls
    kind_errors: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    @property
    def error_rate(self) -> float | None:
        return self.errors / self.total if self.total else None

    def kind_error_rate(self, kind: str) -> float | None:
        """The error rate of one caller kind's calls here (None: it made none)."""
        calls = self.kind_calls.get(kind, 0)
        return self.kind_errors.get(kind, 0) / calls if calls else None


@dataclass(frozen=True)
class VerbRow:
    """One verb's totals over the window."""

    verb: str
    calls: int
    errors: int
    p50_ms: int | None
    p99_ms: int | None

    @property
    def error_rate(self) -> float:
        return self.errors / self.calls if self.calls else 0.0


@dataclass(frozen=True)
class CallerRow:
    """One caller (a token name, or the transport of token-less callers)."""

    name: str
    calls: int
    errors: int


@dataclass(frozen=True)
class KindRow:
    """One caller kind's totals over the window (``CALLER_KINDS``)."""

    kind: str
    calls: int
    errors: int
    entity_found: int
    entity_miss: int
    p50_ms: int | None
    p99_ms: int | None

    @property
    def label(self) -> str:
        return CALLER_KINDS.get(self.kind, self.kind)

    @property
    def error_rate(self) -> float:
        return self.errors / self.calls if self.calls else 0.0

    @property
    def entity_hit_rate(self) -> float | None:
        asked = self.entity_found + self.entity_miss
        return self.entity_found / asked if asked else None


@dataclass(frozen=True)
class UsageView:
    """Everything the Usage page shows for one window."""

    days: int
    bucket: timedelta
    buckets: tuple[Bucket, ...]
    verbs: tuple[VerbRow, ...]
    callers: tuple[CallerRow, ...]
    entity_found: int
    entity_miss: int
    total: int
    kinds: tuple[KindRow, ...] = ()

    @property
    def entity_hit_rate(self) -> float | None:
        asked = self.entity_found + self.entity_miss
        return self.entity_found / asked if asked else None


def _latency(event: Mapping[str, Any]) -> int | None:
    value = event.get("latency_ms")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    return None


def caller_name(event: Mapping[str, Any]) -> str:
    """Who made a call: its token's name, else ``<transport>`` (e.g. ``cli``, ``stdio``)."""
    token = event.get("token_name")
    if isinstance(token, str) and token:
        return token
    return f"({event.get('transport') or 'unknown'})"


def caller_kind(event: Mapping[str, Any]) -> str:
    """The kind of caller behind a usage line: a key of ``CALLER_KINDS``."""
    transport = event.get("transport")
    token = event.get("token_name")
    if transport == "http" and isinstance(token, str) and token.startswith(OAUTH_PREFIX):
        return "oauth"
    if isinstance(transport, str) and transport in CALLER_KINDS and transport != "oauth":
        return transport
    return "other"


@dataclass
class _KindTally:
    calls: int = 0
    errors: int = 0
    found: int = 0
    miss: int = 0
    latencies: list[int] = field(default_factory=list)


def build_view(events: Iterable[Mapping[str, Any]], days: int, *,
               now: datetime | None = None) -> UsageView:
    """Aggregate usage lines (as ``UsageLog.read`` returns them) over the last ``days``.

    Args:
        events: Parsed usage lines, any order; lines outside the window are skipped.
        days: One of ``WINDOWS`` (others fall back to the default window).
        now: The window's end (tests pin it).
    """
    if days not in WINDOWS:
        days = DEFAULT_WINDOW
    width = WINDOWS[days]
    end = (now or datetime.now(UTC)).astimezone(UTC)
    count = math.ceil(timedelta(days=days) / width)
    first = _floor(end, width) - width * (count - 1)
    calls: list[dict[str, int]] = [{} for _ in range(count)]
    errors = [0] * count
    latencies: list[list[int]] = [[] for _ in range(count)]
    per_verb: dict[str, int] = {}
    verb_errors: dict[str, int] = {}
    verb_latency: dict[str, list[int]] = {}
    callers: dict[str, list[int]] = {}
    kinds: dict[str, _KindTally] = {}
    kind_calls: list[dict[str, int]] = [{} for _ in range(count)]
    kind_errors: list[dict[str, int]] = [{} for _ in range(count)]
    found = miss = total = 0
    for event in events:
        try:
            moment = parse_ts(str(event["ts"]))
        except (KeyError, ValueError):
            continue
        index = int((moment - first) // width)
        if not 0 <= index < count or moment > end:
            continue
        verb = str(event.get("verb"))
        failed = event.get("ok") is False
        total += 1
        calls[index][verb] = calls[index].get(verb, 0) + 1
        per_verb[verb] = per_verb.get(verb, 0) + 1
        caller = callers.setdefault(caller_name(event), [0, 0])
        caller[0] += 1
        kind = caller_kind(event)
        tally = kinds.setdefault(kind, _KindTally())
        tally.calls += 1
        kind_calls[index][kind] = kind_calls[index].get(kind, 0) + 1
        if failed:
            errors[index] += 1
            verb_errors[verb] = verb_errors.get(verb, 0) + 1
            caller[1] += 1
            tally.errors += 1
            kind_errors[index][kind] = kind_errors[index].get(kind, 0) + 1
        latency = _latency(event)
        if latency is not None:
            latencies[index].append(latency)
            verb_latency.setdefault(verb, []).append(latency)
            tally.latencies.append(latency)
        if isinstance(event.get("entity_found"), bool):
            if event["entity_found"]:
                found += 1
                tally.found += 1
            else:
                miss += 1
                tally.miss += 1
    buckets = tuple(
        Bucket(first + width * i, calls[i], errors[i], percentile(latencies[i], 50),
               percentile(latencies[i], 99), kind_calls[i], kind_errors[i])
        for i in range(count)
    )
    verbs = tuple(sorted(
        (VerbRow(verb, hits, verb_errors.get(verb, 0),
                 percentile(verb_latency.get(verb, []), 50),
                 percentile(verb_latency.get(verb, []), 99))
         for verb, hits in per_verb.items()),
        key=lambda row: (-row.calls, row.verb)))
    top = tuple(sorted((CallerRow(name, n, e) for name, (n, e) in callers.items()),
                       key=lambda row: (-row.calls, row.name))[:TOP_CALLERS])
    order = list(CALLER_KINDS)
    by_kind = tuple(
        KindRow(kind, t.calls, t.errors, t.found, t.miss, percentile(t.latencies, 50),
                percentile(t.latencies, 99))
        for kind, t in sorted(kinds.items(), key=lambda item: order.index(item[0])))
    return UsageView(days, width, buckets, verbs, top, found, miss, total, by_kind)


def _floor(moment: datetime, width: timedelta) -> datetime:
    """``moment`` rounded down to a multiple of ``width`` since the epoch (UTC)."""
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    return epoch + width * ((moment - epoch) // width)

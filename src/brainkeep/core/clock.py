"""Time: one canonical timestamp format and an injectable clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime


def format_ts(moment: datetime) -> str:
    """Render a datetime as the canonical UTC string stored everywhere.

    Fixed width with microseconds, so the strings sort in time order; delta
    cursors and `since` filters compare them lexicographically.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_ts(text: str) -> datetime:
    """Parse an ISO 8601 date or datetime; naive values are taken as UTC.

    Raises:
        ValueError: when ``text`` is not ISO 8601.
    """
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    moment = datetime.fromisoformat(raw)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def normalize_ts(text: str) -> str:
    """Parse then re-render in the canonical format."""
    return format_ts(parse_ts(text))


@dataclass
class Clock:
    """Source of 'now'; tests pass a fixed function instead of the wall clock."""

    now_fn: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    def now(self) -> datetime:
        return self.now_fn()

    def now_ts(self) -> str:
        return format_ts(self.now_fn())

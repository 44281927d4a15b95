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
    moment = moment.astimezone(UTC)
    # strftime renders year 1 as "1", not "0001": pad it so every string has one width.
    return f"{moment.year:04d}" + moment.strftime("-%m-%dT%H:%M:%S.%fZ")


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
    try:
        return moment.astimezone(UTC)
    except OverflowError as exc:  # "0001-01-01T00:00+01:00" has no UTC instant
        raise ValueError(f"{text!r} is out of the representable range") from exc


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

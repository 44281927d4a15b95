"""Fact lifetimes: `ttl` shorthand (30d, 12h, 45m) or an absolute ISO timestamp."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from brainkeep.core.clock import format_ts, parse_ts
from brainkeep.errors import InvalidInput

_SHORTHAND = re.compile(r"^\s*(\d+)\s*([dhm])\s*$", re.I)
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def parse_ttl(ttl: str, now: datetime) -> str:
    """Return the canonical `valid_until` timestamp for ``ttl``.

    Raises:
        InvalidInput: ISO 8601 durations (``P30D``), zero/negative or unknown forms.
    """
    raw = (ttl or "").strip()
    match = _SHORTHAND.match(raw)
    if match:
        amount = int(match.group(1))
        if amount <= 0:
            raise InvalidInput(
                "ttl must be positive.", suggestion='Use e.g. "30d", "12h" or "45m".', field="ttl"
            )
        return format_ts(now + timedelta(**{_UNITS[match.group(2).lower()]: amount}))
    if re.match(r"^P(T?\d)", raw, re.I):
        shorthand = _duration_hint(raw)
        raise InvalidInput(
            f"ISO 8601 durations like {raw!r} are not accepted for ttl.",
            suggestion=f'Use the shorthand instead, e.g. "{shorthand}" (units d, h, m), '
            "or an absolute ISO 8601 timestamp.",
            field="ttl",
        )
    try:
        until = parse_ts(raw)
    except ValueError as exc:
        raise InvalidInput(
            f"Cannot read ttl {raw!r}.",
            suggestion='Use "30d", "12h", "45m" or an ISO 8601 timestamp like '
            '"2026-12-31T00:00:00Z".',
            field="ttl",
        ) from exc
    return format_ts(until)


def _duration_hint(raw: str) -> str:
    match = re.match(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$", raw.upper())
    if match:
        days, hours, minutes = match.groups()
        if days:
            return f"{days}d"
        if hours:
            return f"{hours}h"
        if minutes:
            return f"{minutes}m"
    return "30d"

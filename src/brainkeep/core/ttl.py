"""Fact lifetimes: `ttl` shorthand (30d, 12h, 45m) or an absolute ISO timestamp."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from brainkeep.core import validate
from brainkeep.core.clock import format_ts
from brainkeep.core.limits import MAX_TTL_DAYS
from brainkeep.errors import InvalidInput

_SHORTHAND = re.compile(r"^\s*(\d+)\s*([dhm])\s*$", re.I)
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}
_MINUTES_PER = {"d": 1440, "h": 60, "m": 1}


def parse_ttl(ttl: str, now: datetime) -> str:
    """Return the canonical `valid_until` timestamp for ``ttl``.

    Raises:
        InvalidInput: ISO 8601 durations (``P30D``), zero, more than ``MAX_TTL_DAYS``
            (docs/limits.md), or unknown forms.
    """
    raw = (ttl or "").strip()
    match = _SHORTHAND.match(raw)
    if match:
        digits, unit = match.group(1).lstrip("0"), match.group(2).lower()
        if not digits:
            raise InvalidInput(
                "ttl must be positive.", suggestion='Use e.g. "30d", "12h" or "45m".', field="ttl"
            )
        # Compare the digit count first: int() refuses > 4,300 digits, and a
        # huge count overflows timedelta (OverflowError, once an internal error).
        if len(digits) > 12 or int(digits) * _MINUTES_PER[unit] > MAX_TTL_DAYS * 1440:
            raise InvalidInput(
                f"ttl {raw[:40]!r} is longer than {MAX_TTL_DAYS} days.",
                suggestion=f'Use at most "{MAX_TTL_DAYS}d", or omit ttl for a fact that '
                "does not expire.",
                field="ttl",
            )
        return format_ts(now + timedelta(**{_UNITS[unit]: int(digits)}))
    if re.match(r"^P(T?\d)", raw, re.I):
        shorthand = _duration_hint(raw)
        raise InvalidInput(
            f"ISO 8601 durations like {raw!r} are not accepted for ttl.",
            suggestion=f'Use the shorthand instead, e.g. "{shorthand}" (units d, h, m), '
            "or an absolute ISO 8601 timestamp.",
            field="ttl",
        )
    try:
        until = validate.date_or_time(raw, "ttl")
    except InvalidInput as exc:
        raise InvalidInput(
            f"Cannot read ttl {raw[:40]!r}.",
            suggestion='Use "30d", "12h", "45m" or an ISO 8601 timestamp like '
            '"2026-12-31T00:00:00Z".',
            detail=exc.message,
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

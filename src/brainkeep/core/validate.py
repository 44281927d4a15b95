"""One rule per parameter kind, shared by every surface (MCP, CLI, gRPC).

Each function turns caller input into a value or raises ``InvalidInput``
with a suggestion; the transports only map that error to their own shape.
The caps come from ``core.limits`` (the table in docs/limits.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from brainkeep.core import limits
from brainkeep.core.clock import format_ts, parse_ts
from brainkeep.errors import InvalidInput


def text(value: str, field: str, *, max_chars: int | None = None) -> str:
    """A caller's string: no NUL, valid UTF-8 (no lone surrogates), bounded.

    NUL truncates text in C libraries and terminals and cannot be told apart
    from the end of a value in logs; a lone surrogate (legal in JSON escapes)
    cannot be encoded for SQLite or the hash chain.
    """
    if "\x00" in value:
        raise InvalidInput(
            f"`{field}` contains a NUL character.",
            suggestion=f"Remove the NUL (\\u0000) characters from `{field}`.",
            field=field,
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"`{field}` is not valid UTF-8 text.",
            suggestion=f"Send `{field}` as plain UTF-8 text.",
            detail=str(exc),
            field=field,
        ) from exc
    if max_chars is not None and len(value) > max_chars:
        raise InvalidInput(
            f"`{field}` is {len(value)} characters; the limit is {max_chars}.",
            suggestion=f"Shorten `{field}` (limits: docs/limits.md).",
            field=field,
        )
    return value


def texts(fields: Iterable[tuple[str, str]]) -> None:
    """Apply ``text`` to every (field name, value) pair (e.g. every string of a request)."""
    for field, value in fields:
        text(value, field)


def _integer(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"`{field}` must be a whole number.",
                           suggestion=f"Pass `{field}` as a number, e.g. 10.", field=field)
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        raise InvalidInput(f"`{field}` must be a whole number.",
                           suggestion=f"Pass `{field}` as a whole number, e.g. 10.", field=field)
    return int(value)


def limit(value: Any, *, default: int, maximum: int, field: str = "limit") -> int:
    """A result-size limit: unset means ``default``; below 1 is an error; above ``maximum``
    is clamped to ``maximum`` (the same rule for recall, search, list_pages and gRPC)."""
    if value is None:
        return default
    number = _integer(value, field)
    if number < 1:
        raise InvalidInput(
            f"`{field}` must be at least 1 (got {number}).",
            suggestion=f"Pass `{field}` between 1 and {maximum}, or omit it for {default}.",
            field=field,
        )
    return min(number, maximum)


def bounded_int(value: Any, *, field: str, minimum: int, maximum: int) -> int:
    """A whole number in [minimum, maximum]; text (a CLI option) is parsed first."""
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise InvalidInput(
                f"`{field}` must be a whole number, not {value[:40]!r}.",
                suggestion=f"Pass `{field}` between {minimum} and {maximum}.",
                field=field,
            ) from None
    number = _integer(value, field)
    if not minimum <= number <= maximum:
        raise InvalidInput(
            f"`{field}` must be between {minimum} and {maximum} (got {number}).",
            suggestion=f"Pass `{field}` between {minimum} and {maximum}.",
            field=field,
        )
    return number


def _in_years(moment: datetime, raw: str, field: str) -> datetime:
    if not limits.MIN_YEAR <= moment.year <= limits.MAX_YEAR:
        raise InvalidInput(
            f"`{field}` {raw[:40]!r} is outside the years {limits.MIN_YEAR}-{limits.MAX_YEAR}.",
            suggestion=f'Use a time between {limits.MIN_YEAR} and {limits.MAX_YEAR}, '
            'e.g. "2026-06-01T12:00:00Z".',
            field=field,
        )
    return moment


def date_or_time(value: str, field: str) -> datetime:
    """An ISO 8601 date or datetime (a value without an offset is UTC), 4-digit year."""
    raw = text(value, field).strip()
    try:
        moment = parse_ts(raw)
    except (ValueError, TypeError) as exc:
        raise InvalidInput(
            f"Cannot parse {field} {value[:40]!r} as an ISO 8601 date or timestamp.",
            suggestion=f'Pass {field} as ISO 8601, e.g. "2026-06-01" or "2026-06-01T12:00:00Z".',
            field=field,
        ) from exc
    return _in_years(moment, raw, field)


def instant(value: str, field: str) -> str:
    """An RFC 3339 instant WITH an offset (``Z`` or ``+02:00``), in the stored form.

    A point in time without an offset names a different instant in every
    time zone, so it is refused rather than guessed (``as_of``).
    """
    raw = text(value, field).strip()
    try:
        parsed = datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw)
        moment = parse_ts(raw)
    except (ValueError, TypeError) as exc:
        raise InvalidInput(
            f"`{field}` {value[:40]!r} is not an RFC 3339 timestamp.",
            suggestion='Use e.g. "2026-06-01T12:00:00Z".',
            field=field,
        ) from exc
    if parsed.tzinfo is None or "T" not in raw.upper():
        raise InvalidInput(
            f"`{field}` {value[:40]!r} has no time zone offset.",
            suggestion=f'Add "Z" (UTC) or an offset, e.g. "{raw[:19]}Z".'
            if "T" in raw.upper() else 'Use a full instant, e.g. "2026-06-01T12:00:00Z".',
            field=field,
        )
    return format_ts(_in_years(moment, raw, field))

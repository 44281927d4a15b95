"""Input rules shared by the Mnemo services (each raises ``InvalidInput``)."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from brainkeep.core import validate
from brainkeep.core.clock import format_ts
from brainkeep.core.ids import is_uuid
from brainkeep.core.jsonlimits import loads_bounded
from brainkeep.core.limits import (
    MAX_EXPIRY_HOURS,
    MAX_ID_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
)
from brainkeep.core.limits import (
    MAX_IDS_PER_CALL as MAX_IDS_PER_CALL,  # re-exported: Forget checks it as v.MAX_IDS_PER_CALL
)
from brainkeep.core.memory.models import DEFAULT_AGENT
from brainkeep.errors import InvalidInput

_AGENT_RE = re.compile(r"^[A-Za-z0-9._-]+$")


def agent_id(value: str | None, *, field: str = "agent_id", default: str | None = DEFAULT_AGENT
             ) -> str:
    """A validated agent id; ``None`` (field unset) becomes ``default``.

    The rule (non-empty, at most 256 characters of ``A-Z a-z 0-9 . _ -``)
    also keeps the MCP owner ``''`` out of reach of every gRPC caller.
    """
    if value is None:
        if default is None:
            raise InvalidInput(f"`{field}` is required.", field=field)
        return default
    if not value or len(value) > MAX_ID_CHARS or not _AGENT_RE.match(value):
        raise InvalidInput(
            f"`{field}` {value[:40]!r} is not a valid agent id.",
            suggestion="Use 1-256 characters of letters, digits, '.', '_' or '-'.",
            field=field,
        )
    return value


def org_id(value: str | None) -> str | None:
    """A tenant id follows the agent id rule; unset (or empty) means the no-org tenant."""
    return agent_id(value, field="org_id") if value else None


def label(value: str | None, field: str, *, required: bool = False,
          max_chars: int = MAX_ID_CHARS) -> str | None:
    """A free-form identifier (thread, branch, topic): non-blank, bounded, no control chars."""
    if value is None or (not required and value == ""):
        if required:
            raise InvalidInput(f"`{field}` is required.", field=field)
        return None
    if not value.strip() or len(value) > max_chars or any(ord(c) < 32 for c in value):
        raise InvalidInput(
            f"`{field}` must be 1-{max_chars} printable characters.", field=field
        )
    return value


def choice(value: str | None, allowed: tuple[str, ...], field: str, default: str) -> str:
    """``value`` if it is one of ``allowed``; unset/empty means ``default``."""
    if not value:
        return default
    if value not in allowed:
        raise InvalidInput(
            f"Unknown {field} {value[:40]!r}.",
            suggestion=f"Use one of: {', '.join(allowed)}.",
            field=field,
        )
    return value


def optional_choice(value: str | None, allowed: tuple[str, ...], field: str) -> str | None:
    """Like ``choice`` but unset stays unset (a filter that is not applied)."""
    return None if not value else choice(value, allowed, field, "")


def unit_float(value: float | None, field: str) -> float | None:
    """A finite number in [0, 1], or ``None``."""
    if value is None:
        return None
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise InvalidInput(f"`{field}` must be between 0 and 1.", field=field)
    return float(value)


def json_object(text: str | None, field: str, *, allow_any: bool = False) -> Any:
    """Parse a JSON-encoded string field; objects only unless ``allow_any``.

    Size, depth (64), NaN/Infinity and string rules: ``core.jsonlimits``.
    """
    if text is None or text == "":
        return {}
    value = loads_bounded(text, field)
    if not allow_any and not isinstance(value, dict):
        raise InvalidInput(f"`{field}` must be a JSON object.", field=field)
    return value


def tags(values: list[str] | tuple[str, ...], field: str = "tags") -> tuple[str, ...]:
    """Non-blank, bounded tags, de-duplicated in order."""
    if len(values) > MAX_TAGS:
        raise InvalidInput(f"At most {MAX_TAGS} {field} per request.", field=field)
    seen: dict[str, None] = {}
    for tag in values:
        if not tag.strip() or len(tag) > MAX_TAG_CHARS:
            raise InvalidInput(
                f"Each of `{field}` must be 1-{MAX_TAG_CHARS} non-blank characters.", field=field
            )
        seen.setdefault(tag, None)
    return tuple(seen)


def memory_uuid(value: str, field: str = "memory_id") -> str:
    """A memory id (UUID), lower-cased as stored."""
    if not value or not is_uuid(value):
        raise InvalidInput(
            f"`{field}` {value[:40]!r} is not a memory id (a UUID).",
            suggestion="Use the `id` returned by Remember or Recall.",
            field=field,
        )
    return value.lower()


def id_list(values: list[str] | tuple[str, ...], field: str) -> tuple[str, ...]:
    """A bounded, de-duplicated list of memory UUIDs."""
    if len(values) > MAX_IDS_PER_CALL:
        raise InvalidInput(f"At most {MAX_IDS_PER_CALL} ids in `{field}`.", field=field)
    return tuple(dict.fromkeys(memory_uuid(v, field) for v in values))


def timestamp(value: str | None, field: str) -> str | None:
    """An RFC 3339 instant with an offset, in the canonical stored form (``validate.instant``)."""
    if not value:
        return None
    return validate.instant(value, field)


def expiry(now: datetime, hours: float | None, field: str = "expires_in_hours") -> str | None:
    """``now + hours`` for a positive, finite number of hours (at most ~100 years)."""
    if hours is None:
        return None
    if not math.isfinite(hours) or hours <= 0 or hours > MAX_EXPIRY_HOURS:
        raise InvalidInput(f"`{field}` must be a positive number of hours.", field=field)
    return format_ts(now.astimezone(UTC) + timedelta(hours=hours))

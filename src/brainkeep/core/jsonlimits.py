"""JSON from a caller, bounded: size, nesting depth, finite numbers, clean strings.

The one function every surface uses for JSON it accepts (gRPC ``metadata``
and ``state_snapshot`` today; the MCP transports may call it on a raw
request line). Depth is measured BEFORE decoding: the stdlib decoder
recurses once per level, so 10,000 nested brackets end as a RecursionError
deep inside it rather than as a caller error.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

from brainkeep.core import limits, validate
from brainkeep.errors import InvalidInput

# A JSON string literal (escapes included); removed before counting brackets.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")


def text_depth(text: str) -> int:
    """The bracket nesting depth of JSON ``text`` (strings ignored), without decoding it."""
    steps = (1 if c in "[{" else -1 for c in _BRACKETS.findall(_STRING.sub("", text)))
    return max(accumulate(steps, initial=0))


def check_depth(value: Any, field: str, *, max_depth: int = limits.MAX_JSON_DEPTH) -> None:
    """Raise ``InvalidInput`` when a decoded value nests deeper than ``max_depth``.

    Iterative, so it is safe on any depth (YAML frontmatter, decoded JSON).
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth + 1 > max_depth:
                raise _too_deep(field, max_depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def _too_deep(field: str, max_depth: int) -> InvalidInput:
    return InvalidInput(
        f"`{field}` nests deeper than {max_depth} levels.",
        suggestion=f"Flatten `{field}` to at most {max_depth} levels of objects/arrays "
        "(docs/limits.md).",
        field=field,
    )


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(token: str) -> float:
    number = float(token)
    if not math.isfinite(number):  # 1e400 decodes to inf
        raise ValueError(f"{token} is out of range")
    return number


def _check_strings(value: Any, field: str) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            validate.text(item, field)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def loads_bounded(
    text: str,
    field: str,
    *,
    max_chars: int = limits.MAX_JSON_CHARS,
    max_depth: int = limits.MAX_JSON_DEPTH,
) -> Any:
    """Decode caller JSON within the documented caps.

    Raises:
        InvalidInput: too long, deeper than ``max_depth``, not JSON, NaN or
            Infinity (not JSON, though Python accepts them), a number out of
            range, or a string holding NUL or a lone surrogate.
    """
    if len(text) > max_chars:
        raise InvalidInput(
            f"`{field}` is {len(text)} characters; the limit is {max_chars}.",
            suggestion=f"Send a smaller `{field}` (docs/limits.md).",
            field=field,
        )
    if text_depth(text) > max_depth:
        raise _too_deep(field, max_depth)
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"`{field}` is not valid JSON: {exc.msg} at position {exc.pos}.",
            suggestion=f'Send `{field}` as JSON, e.g. {{"source": "chat"}}.',
            field=field,
        ) from exc
    except (ValueError, RecursionError) as exc:  # NaN, 1e400, a 5,000-digit integer
        raise InvalidInput(
            f"`{field}` is not valid JSON: {exc}.",
            suggestion=f"Send `{field}` as standard JSON: finite numbers, no NaN or Infinity.",
            field=field,
        ) from exc
    _check_strings(value, field)
    return value

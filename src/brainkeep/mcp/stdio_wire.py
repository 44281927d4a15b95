"""Line framing for MCP over stdio: every request line gets an answer.

The SDK's stdio transport decodes stdin with ``errors="replace"`` (so invalid
UTF-8 was stored with U+FFFD) and drops a line it cannot parse without a
reply (so a client waiting on that id hangs). This module reads raw bytes
instead and classifies each line before the SDK sees it:

* not UTF-8, not JSON, or nested deeper than ``MAX_JSON_DEPTH`` → ``-32700``
  parse error;
* JSON, but not a valid JSON-RPC message (wrong shape, a lone surrogate
  escape such as ``"\\ud800"``) → ``-32600`` invalid request;
* longer than ``MAX_LINE_BYTES`` → ``-32600``.

The reply carries the request's id whenever one can be recovered from the
line (even a line too deep or too broken to parse usually has a readable
top-level ``"id"``), else ``null`` as JSON-RPC 2.0 prescribes. A line that
answers nothing (a malformed notification or response) is logged to stderr.

``parse`` does every check that needs no MCP SDK (the lean stdio session in
``mcp/stdio.py`` uses it with ``check_shape``); ``classify`` adds the SDK's
own message validation for a connection handed to the SDK.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the SDK loads only for a connection handed to it (classify)
    from mcp.shared.message import SessionMessage

log = logging.getLogger("brainkeep.stdio")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
# The same bound the HTTP gate applies to a body (config http.max_body_bytes default).
MAX_LINE_BYTES = 4 * 1024 * 1024
# Deeper JSON is refused before any parser recurses on it: Python's json and
# pydantic's parser both fail (RecursionError / "recursion limit") far below 10,000.
MAX_JSON_DEPTH = 64
_ID_VALUE = re.compile(r'\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*"|null)')


@dataclass(frozen=True)
class Accepted:
    """A valid JSON-RPC message for the SDK; ``request_id`` is set for requests."""

    message: SessionMessage
    request_id: str | int | None


@dataclass(frozen=True)
class Rejected:
    """A malformed line: the reply to write (None: nothing can be answered) and why."""

    reply: bytes | None
    reason: str


@dataclass(frozen=True)
class Parsed:
    """A line that is UTF-8 JSON within the limits: its text and its value."""

    text: str
    value: Any


@dataclass(frozen=True)
class Message:
    """A JSON-RPC 2.0 message by shape: a request (``has_id``), a notification, or a response."""

    method: str | None  # None: a response
    request_id: str | int | None
    has_id: bool
    params: dict[str, Any] | None


def classify(line: bytes) -> Accepted | Rejected | None:
    """Classify one stdin line (trailing newline included or not); None for a blank line."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    parsed = parse(line)
    if not isinstance(parsed, Parsed):
        return parsed
    text = parsed.text
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as exc:
        errors = exc.errors()
        if errors:
            where = ".".join(str(part) for part in errors[0]["loc"])
            detail = f"{where}: {errors[0]['msg']}" if where else errors[0]["msg"]
        else:
            detail = "not a JSON-RPC 2.0 message"
        return _reject(INVALID_REQUEST, f"Invalid Request: {detail}", _id_of(parsed.value),
                       answer=_is_request_like(parsed.value))
    request_id = message.id if isinstance(message, types.JSONRPCRequest) else None
    return Accepted(SessionMessage(message), request_id)


def parse(line: bytes) -> Parsed | Rejected | None:
    """The SDK-free checks of ``classify``: size, UTF-8, depth, JSON, lone surrogates."""
    raw = line.strip()
    if not raw:
        return None
    if len(raw) > MAX_LINE_BYTES:
        return _reject(INVALID_REQUEST, f"Request larger than {MAX_LINE_BYTES} bytes.",
                       recover_id(raw[:65536].decode("utf-8", "replace")))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _reject(PARSE_ERROR, f"Parse error: the line is not valid UTF-8 ({exc.reason} "
                       f"at byte {exc.start}).", recover_id(raw.decode("utf-8", "replace")))
    # Counting first keeps the per-line scan off the hot path of ordinary requests.
    brackets = text.count("[") + text.count("{")
    if brackets > MAX_JSON_DEPTH and json_depth(text) > MAX_JSON_DEPTH:
        return _reject(PARSE_ERROR, f"Parse error: JSON nested deeper than {MAX_JSON_DEPTH}.",
                       recover_id(text))
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        return _reject(PARSE_ERROR, f"Parse error: {exc}.", recover_id(text))
    # A lone surrogate can only come from a \\uD8xx-\\uDFxx escape (decoded UTF-8
    # holds none), so the re-encoding check runs only for lines with one.
    if "\\ud" in text or "\\uD" in text:
        try:
            json.dumps(parsed, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return _reject(INVALID_REQUEST, "Invalid Request: a string holds a lone UTF-16 "
                           "surrogate escape (such as \\ud800), which is not Unicode text.",
                           _id_of(parsed), answer=_is_request_like(parsed))
    return Parsed(text, parsed)


def check_shape(value: Any) -> Message | Rejected:
    """The JSON-RPC 2.0 shape of a parsed line, without the SDK's models.

    A request has a string ``method`` and an integer or string ``id``; a
    notification has a ``method`` and no ``id``; a response has an ``id`` and
    a ``result`` or an ``error``. ``params``, when present, is an object (MCP
    never sends positional params).
    """
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        return _reject(INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 object '
                       '(jsonrpc must be "2.0").', _id_of(value),
                       answer=_is_request_like(value))
    method = value.get("method")
    has_id = "id" in value
    request_id = value.get("id")
    id_ok = isinstance(request_id, int | str) and not isinstance(request_id, bool)
    if method is None:
        if has_id and ("result" in value or "error" in value):
            return Message(None, request_id if id_ok else None, True, None)
        return _reject(INVALID_REQUEST, "Invalid Request: no method, and not a response.",
                       _id_of(value), answer=_is_request_like(value))
    params = value.get("params")
    if not isinstance(method, str) or (has_id and not id_ok) or not (
            params is None or isinstance(params, dict)):
        what = ("method must be a string" if not isinstance(method, str) else
                "id must be an integer or a string" if has_id and not id_ok else
                "params must be an object")
        return _reject(INVALID_REQUEST, f"Invalid Request: {what}.", _id_of(value),
                       answer=_is_request_like(value))
    return Message(method, request_id if has_id else None, has_id, params)


def json_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting of ``text``, ignoring brackets inside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def recover_id(text: str) -> str | int | None:
    """The top-level ``"id"`` of a (possibly broken) JSON object, if one is readable.

    Scans without parsing, so it works on lines too deep or too damaged for a parser.
    """
    depth = 0
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            end = _string_end(text, i)
            if depth == 1 and text[i:end] == '"id"':
                match = _ID_VALUE.match(text, end)
                if match:
                    return _id_of({"id": _loads_or_none(match.group(1))})
            i = end
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        i += 1
    return None


def _string_end(text: str, start: int) -> int:
    """Index just past the string literal opening at ``start`` (or the end of text)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


def _loads_or_none(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return None


def _id_of(parsed: Any) -> str | int | None:
    if isinstance(parsed, dict):
        value = parsed.get("id")
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate cannot be echoed back
                return None
            return value
    return None


def _is_request_like(parsed: Any) -> bool:
    """Whether a reply is owed: anything but a notification or a response.

    JSON-RPC answers an invalid request even without an id (with id null); it
    never answers a notification, and answering a response would loop.
    """
    if not isinstance(parsed, dict):
        return True
    if "result" in parsed or "error" in parsed:
        return False
    return not ("method" in parsed and "id" not in parsed)


def _reject(code: int, message: str, request_id: str | int | None, *,
            answer: bool = True) -> Rejected:
    if not answer:
        return Rejected(None, message)
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return Rejected(json.dumps(body).encode("utf-8") + b"\n", message)

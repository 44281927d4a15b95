"""Each harness's hook payload in, and its documented output shape out.

Claude Code (hooks in ``~/.claude/settings.json``) and Codex (``~/.codex/
hooks.json``) send one JSON object on stdin with ``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name`` and per event ``prompt``
(UserPromptSubmit) or ``source`` (SessionStart); both read
``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`` from a
SessionStart or UserPromptSubmit hook's stdout. Codex's older ``notify``
program gets its JSON (``agent-turn-complete``) as the last argument.
``generic`` is ours: the same fields in, ``{"context": ...}`` out.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

# Our event name -> (what it does, the host's own event name).
EVENTS: dict[str, dict[str, tuple[str, str]]] = {
    "claude-code": {
        "session-start": ("start", "SessionStart"),
        "user-prompt": ("prompt", "UserPromptSubmit"),
        "pre-compact": ("bank", "PreCompact"),
        "stop": ("bank_async", "Stop"),
        "session-end": ("bank", "SessionEnd"),
    },
    "codex": {
        "session-start": ("start", "SessionStart"),
        "user-prompt": ("prompt", "UserPromptSubmit"),
        "pre-compact": ("bank", "PreCompact"),
        "stop": ("bank_async", "Stop"),
        "notify": ("turn", "agent-turn-complete"),
    },
    "generic": {
        "session-start": ("start", "session-start"),
        "user-prompt": ("prompt", "user-prompt"),
        "bank": ("bank", "bank"),
    },
}
TRANSCRIPT_FORMAT = {"claude-code": "claude-code", "codex": "codex", "generic": "auto"}


class PayloadError(ValueError):
    """The payload is not what the host documents (fails open as ``bad_payload``)."""


class HookEvent(NamedTuple):
    """One hook run's input, host-neutral.

    A NamedTuple, not a dataclass: ``dataclasses`` imports ``inspect``, and a
    hook is a fresh process per prompt that imports nothing it can avoid.
    """

    host: str
    event: str
    action: str  # start | prompt | bank | bank_async | turn
    session_id: str
    cwd: str
    prompt: str = ""
    transcript_path: str = ""
    transcript_format: str = "auto"
    source: str = ""  # SessionStart: startup | resume | clear | compact


def _text(data: dict[str, Any], *names: str) -> str:
    for name in names:
        value = data.get(name)
        if isinstance(value, str):
            return value
    return ""


def parse(host: str, event: str, raw: bytes, argv_payload: str | None = None) -> HookEvent:
    """The event from the host's stdin bytes (or, for Codex notify, its argument)."""
    action = EVENTS[host][event][0]
    source = argv_payload.encode("utf-8", "surrogateescape") if argv_payload else raw
    try:
        data = json.loads(source.decode("utf-8")) if source.strip() else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise PayloadError(type(exc).__name__) from exc
    if not isinstance(data, dict):
        raise PayloadError("not_an_object")
    session = _text(data, "session_id", "thread-id", "thread_id")
    if action == "prompt":
        prompt = _text(data, "prompt", "user_prompt")
    elif action == "turn":
        messages = data.get("input-messages") or data.get("input_messages") or []
        prompt = " ".join(m for m in messages if isinstance(m, str))
    else:
        prompt = ""
    return HookEvent(
        host=host, event=event, action=action, session_id=session or "default",
        cwd=_text(data, "cwd"), prompt=prompt,
        transcript_path=_text(data, "transcript_path", "transcript"),
        transcript_format=_text(data, "format") or TRANSCRIPT_FORMAT[host],
        source=_text(data, "source"),
    )


def render(event: HookEvent, context: str, counts: dict[str, int]) -> str:
    """What the hook prints ('' prints nothing: the host injects nothing)."""
    if event.action not in ("start", "prompt"):
        return ""
    if event.host == "generic":
        return json.dumps({"context": context, **counts}, ensure_ascii=False)
    if not context:
        return ""
    host_event = EVENTS[event.host][event.event][1]
    return json.dumps({"hookSpecificOutput": {"hookEventName": host_event,
                                              "additionalContext": context}},
                      ensure_ascii=False)

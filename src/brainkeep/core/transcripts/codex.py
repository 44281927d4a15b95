"""Codex CLI session logs: ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``.

Current logs wrap every line as ``{"timestamp", "type", "payload"}``:
``session_meta`` (id, cwd), ``response_item`` (``message`` with a role and
input_text / output_text blocks, ``function_call`` / ``function_call_output``,
``local_shell_call``, ``custom_tool_call``, ``reasoning``), ``event_msg``
(``user_message`` / ``agent_message`` mirrors of the messages, token counts),
``turn_context`` and ``compacted``. Older logs put the session (``id``,
``timestamp``, ``instructions``) on the first line and the response items
bare on the next, with ``record_type: state`` separators; both are read.

Kept: user and assistant messages, tool calls and outputs in short form
(reading.py), compaction summaries as ``system``. Skipped: developer/system
prompts, the injected ``<environment_context>`` / ``<user_instructions>`` /
AGENTS.md user messages, reasoning. ``event_msg`` messages are used only
when a log has no ``response_item`` messages (they are duplicates).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from brainkeep.core.transcripts.model import Conversation, ParsedFile, Turn
from brainkeep.core.transcripts.reading import (
    LineLog,
    block_text,
    first_line_title,
    iso_text,
    jsonl_objects,
    tool_call,
    tool_result,
)

FORMAT = "codex"
_ENVELOPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
             "<permissions instructions>", "<INSTRUCTIONS>")


def looks_like(obj: dict[str, Any]) -> bool:
    """Whether one parsed line is a Codex rollout line (either generation)."""
    if obj.get("type") in _ENVELOPES and "payload" in obj:
        return True
    return "record_type" in obj or ("instructions" in obj and "id" in obj)


def _item_turn(item: dict[str, Any]) -> tuple[str, str] | None:
    """(speaker, text) of one response item, or None when it is not kept."""
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        text = block_text(item.get("content"))
        if role == "user" and not text.lstrip().startswith(_INJECTED):
            return "user", text
        if role == "assistant":
            return "assistant", text
        return None
    if kind in ("function_call", "custom_tool_call"):
        return "assistant", tool_call(str(item.get("name") or ""),
                                      item.get("arguments", item.get("input")))
    if kind == "local_shell_call":
        action = item.get("action")
        command = action.get("command") if isinstance(action, dict) else action
        return "assistant", tool_call("shell", command)
    if kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        output = item.get("output")
        if isinstance(output, str) and output.startswith("{"):
            try:  # shell outputs are JSON text: {"output": "...", "metadata": {...}}
                output = json.loads(output)
            except ValueError:
                pass
        if isinstance(output, dict):
            output = output.get("content", output.get("output", output))
        return "tool", tool_result(output)
    return None


def parse(path: Path, data: bytes) -> ParsedFile:
    """The one conversation in a Codex rollout file (none when it has no turns)."""
    log = LineLog()
    items: list[tuple[str, str, str | None]] = []
    events: list[tuple[str, str, str | None]] = []
    session_id: str | None = None
    project: str | None = None
    for number, obj in enumerate(jsonl_objects(data, log)):
        kind = obj.get("type")
        at = iso_text(obj.get("timestamp"))
        payload = obj.get("payload")
        if kind == "session_meta" and isinstance(payload, dict):
            session_id = session_id or _str(payload.get("id"))
            project = project or _str(payload.get("cwd"))
            continue
        if kind in _ENVELOPES:
            if not isinstance(payload, dict):
                continue
            if kind == "response_item":
                found = _item_turn(payload)
                if found:
                    items.append((*found, at))
            elif kind == "compacted" and _str(payload.get("message")):
                items.append(("system", str(payload["message"]), at))
            elif kind == "event_msg" and payload.get("type") in ("user_message", "agent_message"):
                speaker = "user" if payload["type"] == "user_message" else "assistant"
                if _str(payload.get("message")):
                    events.append((speaker, str(payload["message"]), at))
            elif kind == "turn_context":
                project = project or _str(payload.get("cwd"))
            continue
        if number == 0 and "id" in obj and "record_type" not in obj and "role" not in obj:
            session_id = session_id or _str(obj.get("id"))  # the older first line
            continue
        found = _item_turn(obj)
        if found:
            items.append((*found, at))
    if not any(speaker in ("user", "assistant") for speaker, _, _ in items):
        items = events + items
    turns = tuple(
        Turn(i, speaker, text, at) for i, (speaker, text, at) in
        enumerate((s, t, a) for s, t, a in items if t.strip())
    )
    conversations: tuple[Conversation, ...] = ()
    if turns:
        first_user = next((t.text for t in turns if t.speaker == "user"), turns[0].text)
        conversations = (Conversation(
            id=session_id or path.stem.removeprefix("rollout-"),
            title=first_line_title(first_user) or path.stem,
            fmt=FORMAT,
            started_at=turns[0].at,
            turns=turns,
            project=project,
        ),)
    return ParsedFile(FORMAT, conversations, log.skipped, tuple(log.problems))


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None

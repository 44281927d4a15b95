"""Claude Code session logs: ``~/.claude/projects/<project>/<session>.jsonl``.

One JSON object per line. ``type`` ``user`` / ``assistant`` lines carry
``message.content`` (a string, or content blocks: text, tool_use,
tool_result, thinking, image), ``timestamp``, ``sessionId``, ``uuid`` and
``parentUuid``, ``cwd``. ``summary`` lines title the session. Other types
(``system``, ``file-history-snapshot``, ``queue-operation``, ``progress``)
are bookkeeping and skipped, as are sub-agent (``isSidechain``) and meta
(``isMeta``: command caveats) lines. One assistant reply is often written as
several lines sharing ``message.id``: they are joined into one turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from brainkeep.core.transcripts.model import Conversation, ParsedFile, Turn
from brainkeep.core.transcripts.reading import (
    LineLog,
    block_text,
    first_line_title,
    iso_text,
    jsonl_objects,
)

FORMAT = "claude-code"


def looks_like(obj: dict[str, Any]) -> bool:
    """Whether one parsed line is a Claude Code log line."""
    return "sessionId" in obj or (obj.get("type") == "summary" and "leafUuid" in obj) or (
        obj.get("type") in ("user", "assistant") and isinstance(obj.get("message"), dict)
    )


def _speaker(kind: str, content: Any) -> str:
    if kind == "assistant":
        return "assistant"
    blocks = content if isinstance(content, list) else []
    if blocks and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
        return "tool"
    return "user"


def parse(path: Path, data: bytes) -> ParsedFile:
    """The one conversation in a Claude Code session file (none when it has no turns)."""
    log = LineLog()
    turns: list[Turn] = []
    ids: list[str | None] = []  # message.id per turn, to join split assistant replies
    session_id: str | None = None
    project: str | None = None
    summary: str | None = None
    for obj in jsonl_objects(data, log):
        kind = obj.get("type")
        if session_id is None and isinstance(obj.get("sessionId"), str):
            session_id = obj["sessionId"]
        if project is None and isinstance(obj.get("cwd"), str):
            project = obj["cwd"]
        if kind == "summary" and isinstance(obj.get("summary"), str):
            summary = obj["summary"]
            continue
        if kind not in ("user", "assistant") or obj.get("isSidechain") or obj.get("isMeta"):
            continue
        message = obj.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        text = block_text(content)
        if not text.strip():
            continue
        speaker = "system" if obj.get("isCompactSummary") else _speaker(str(kind), content)
        message_id = message.get("id") if isinstance(message.get("id"), str) else None
        if turns and message_id is not None and ids[-1] == message_id:
            last = turns[-1]
            turns[-1] = Turn(last.index, last.speaker, f"{last.text}\n\n{text}", last.at, last.uid)
            continue
        uid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
        turns.append(Turn(len(turns), speaker, text, iso_text(obj.get("timestamp")), uid))
        ids.append(message_id)
    conversations: tuple[Conversation, ...] = ()
    if turns:
        first_user = next((t.text for t in turns if t.speaker == "user"), turns[0].text)
        conversations = (Conversation(
            id=session_id or path.stem,
            title=summary or first_line_title(first_user) or path.stem,
            fmt=FORMAT,
            started_at=turns[0].at,
            turns=tuple(turns),
            project=project,
        ),)
    return ParsedFile(FORMAT, conversations, log.skipped, tuple(log.problems))

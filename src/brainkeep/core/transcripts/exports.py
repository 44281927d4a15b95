"""The ChatGPT and Claude.ai data exports: ``conversations.json`` (a JSON list).

ChatGPT: each conversation has ``title``, ``create_time`` (epoch seconds),
``conversation_id`` / ``id``, ``current_node`` and a ``mapping`` of nodes
(``id``, ``parent``, ``children``, ``message``: ``author.role``,
``create_time``, ``content`` with ``content_type`` and ``parts``). The
conversation is the branch from the root to ``current_node`` (what the user
last saw; edited-away branches are left out). System messages, hidden
messages (custom instructions, memory) and thoughts are skipped; code and
execution output, browsing and other tool messages keep their short form.

Claude.ai: each conversation has ``uuid``, ``name``, ``created_at`` and
``chat_messages`` (``uuid``, ``sender`` human/assistant, ``text``,
``content`` blocks, ``created_at``, ``attachments`` / ``files``).
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.transcripts.model import Conversation, Turn
from brainkeep.core.transcripts.reading import (
    block_text,
    first_line_title,
    iso_from_epoch,
    iso_text,
    tool_call,
    tool_result,
)

_SKIPPED_CONTENT = frozenset({
    "user_editable_context", "model_editable_context", "thoughts", "reasoning_recap",
    "system_error",
})


def looks_like_chatgpt(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("mapping"), dict)


def looks_like_claude_ai(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("chat_messages"), list)


def _branch(mapping: dict[str, Any], leaf: Any) -> list[dict[str, Any]]:
    """The nodes from the root to ``leaf`` (the latest leaf when it is unknown)."""
    if not isinstance(leaf, str) or leaf not in mapping:
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
        if not leaves:
            return []
        leaf = max(leaves, key=lambda k: _node_time(mapping[k]))
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id: Any = leaf
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)  # a cycle in a damaged export must not loop forever
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        path.append(node)
        node_id = node.get("parent")
    path.reverse()
    return path


def _node_time(node: Any) -> float:
    message = node.get("message") if isinstance(node, dict) else None
    value = message.get("create_time") if isinstance(message, dict) else None
    return float(value) if isinstance(value, int | float) else 0.0


def _part_text(part: Any) -> str:
    """One of ``content.parts``: text, a transcribed voice message, or a placeholder."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return ""
    if isinstance(part.get("text"), str):  # audio_transcription parts carry the words
        return str(part["text"])
    kind = str(part.get("content_type", ""))
    return "[image]" if "image" in kind else "[audio]" if "audio" in kind else ""


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _chatgpt_text(message: dict[str, Any]) -> tuple[str, str] | None:
    """(speaker, text) of one ChatGPT message, or None when it is not kept."""
    author = _mapping(message.get("author"))
    role = author.get("role")
    metadata = _mapping(message.get("metadata"))
    if role == "system" or metadata.get("is_visually_hidden_from_conversation"):
        return None
    content = _mapping(message.get("content"))
    kind = content.get("content_type", "text")
    if kind in _SKIPPED_CONTENT:
        return None
    if kind == "code":
        return "assistant", tool_call(str(message.get("recipient") or "code"), content.get("text"))
    if kind in ("execution_output", "tether_browsing_display", "tether_quote"):
        body = content.get("text") or content.get("result") or content.get("title") or ""
        return "tool", tool_result(body)
    parts = content.get("parts")
    if isinstance(parts, list):
        texts = [_part_text(p) for p in parts]
        text = "\n\n".join(t for t in texts if t.strip())
    else:
        text = str(content.get("text") or "")
    if role == "tool":
        name = str(author.get("name") or "tool")
        return "tool", tool_result(f"{name}: {text}")
    if role not in ("user", "assistant"):
        return None
    if role == "assistant" and message.get("recipient") not in (None, "all"):
        return "assistant", tool_call(str(message.get("recipient")), text)
    return str(role), text


def chatgpt(document: list[Any]) -> tuple[Conversation, ...]:
    """Every conversation of a ChatGPT export."""
    out: list[Conversation] = []
    for number, item in enumerate(document):
        if not looks_like_chatgpt(item):
            continue
        turns: list[Turn] = []
        for node in _branch(item["mapping"], item.get("current_node")):
            message = node.get("message")
            if not isinstance(message, dict):
                continue
            found = _chatgpt_text(message)
            if found is None or not found[1].strip():
                continue
            uid = message.get("id") if isinstance(message.get("id"), str) else node.get("id")
            turns.append(Turn(len(turns), found[0], found[1],
                              iso_from_epoch(message.get("create_time")),
                              uid if isinstance(uid, str) else None))
        if not turns:
            continue
        conv_id = item.get("conversation_id") or item.get("id") or f"conversation-{number}"
        out.append(_conversation(str(conv_id), item.get("title"), "chatgpt",
                                 iso_from_epoch(item.get("create_time")), turns))
    return tuple(out)


def _conversation(conv_id: str, title: object, fmt: str, started_at: str | None,
                  turns: list[Turn]) -> Conversation:
    """One export conversation; untitled, it is named by its first line (else its id)."""
    named = title.strip() if isinstance(title, str) else ""
    return Conversation(id=conv_id, title=named or first_line_title(turns[0].text) or conv_id,
                        fmt=fmt, started_at=started_at or turns[0].at, turns=tuple(turns))


def _claude_message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    text = block_text(content) if isinstance(content, list) and content else ""
    if not text.strip():
        text = str(message.get("text") or "")
    names = [
        str(a.get("file_name")) for key in ("attachments", "files")
        for a in (message.get(key) or []) if isinstance(a, dict) and a.get("file_name")
    ]
    if names:
        text = (text + "\n\n" if text.strip() else "") + " ".join(
            f"[attachment: {n}]" for n in dict.fromkeys(names))
    return text


def claude_ai(document: list[Any]) -> tuple[Conversation, ...]:
    """Every conversation of a Claude.ai export."""
    out: list[Conversation] = []
    for number, item in enumerate(document):
        if not looks_like_claude_ai(item):
            continue
        turns: list[Turn] = []
        for message in item["chat_messages"]:
            if not isinstance(message, dict):
                continue
            sender = message.get("sender")
            speaker = "user" if sender in ("human", "user") else sender
            if speaker not in ("user", "assistant"):
                continue
            text = _claude_message_text(message)
            if not text.strip():
                continue
            uid = message.get("uuid")
            turns.append(Turn(len(turns), str(speaker), text, iso_text(message.get("created_at")),
                              uid if isinstance(uid, str) else None))
        if not turns:
            continue
        conv_id = item.get("uuid") or f"conversation-{number}"
        out.append(_conversation(str(conv_id), item.get("name"), "claude-ai",
                                 iso_text(item.get("created_at")), turns))
    return tuple(out)

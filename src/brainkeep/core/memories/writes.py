"""The one write path of the memories table: insert and expire, each with its event.

MCP ``remember``/``forget``, the CLI and gRPC Remember/Consolidate all come
through here, so a row and its audit event are always written together, in
the caller's transaction, with the one payload per kind of ``core/events.py``.
The engine links ``prev_hash`` and assigns the event ``seq`` (writes are
serialized by the store's contract).
"""

from __future__ import annotations

from brainkeep.core import events
from brainkeep.core.audit import memory_hash
from brainkeep.core.ids import uuid7
from brainkeep.core.models import Event, Memory, MemoryDraft
from brainkeep.core.slugs import normalize_alias
from brainkeep.errors import InvalidInput
from brainkeep.store.base import Store


def normalize_fact(text: str) -> str:
    """Text form two facts share when they say the same thing (case, accents, punctuation)."""
    return normalize_alias(text)


def require_utf8(value: str, field: str) -> None:
    """Reject lone surrogates (JSON allows them); SQLite and the hash chain cannot store them."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"`{field}` is not valid UTF-8 text.",
            suggestion=f"Send `{field}` as plain UTF-8 text.",
            detail=str(exc),
            field=field,
        ) from exc


def insert(store: Store, draft: MemoryDraft, now: str, *, actor: str,
           normalized: str | None = None, topic_version: int | None = None
           ) -> tuple[Memory, Event]:
    """Insert ``draft`` and its ``memory.insert`` event (call inside a transaction).

    ``content_hash`` covers text, owner and creation time; ``normalized`` is
    the duplicate key (computed from the text when not given).
    """
    memory = store.insert_memory(
        draft,
        uuid=uuid7(),
        now=now,
        normalized_text=normalize_fact(draft.text) if normalized is None else normalized,
        content_hash=memory_hash(draft.text, draft.agent_id, now),
    )
    event = store.append_event(
        events.memory_insert(memory, actor=actor, topic_version=topic_version), now
    )
    return memory, event


def expire(store: Store, memory: Memory, now: str, reason: str | None, *, actor: str,
           superseded_by: int | None = None) -> Event:
    """Expire ``memory`` (the row and its history stay) and log it (inside a transaction)."""
    store.expire_memory(memory.id, now, reason, superseded_by=superseded_by)
    return store.append_event(
        events.memory_expire(memory, actor=actor, reason=reason, superseded_by=superseded_by),
        now,
    )

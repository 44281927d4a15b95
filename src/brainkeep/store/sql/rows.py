"""Row mappers shared by both engines: database rows (by column name) to domain values."""

from __future__ import annotations

import json
from typing import Any, Protocol

from brainkeep.core.limits import MAX_STORED_FRONTMATTER_CHARS
from brainkeep.core.memory.models import Checkpoint
from brainkeep.core.models import Event, Memory, Page

_PAGE_FIELDS = (
    "id", "source_id", "slug", "title", "type", "frontmatter", "body", "content",
    "content_hash", "visibility", "summary", "created_at", "updated_at", "last_retrieved_at",
    "deleted_at",
)
PAGE_COLUMNS = ", ".join(_PAGE_FIELDS)


class RowLike(Protocol):
    """A row read by column name (``sqlite3.Row``, or the PostgreSQL engine's ``Row``)."""

    def __getitem__(self, key: str, /) -> Any: ...
    def keys(self) -> list[str]: ...


def page_columns(alias: str) -> str:
    """PAGE_COLUMNS qualified by a table alias, for joins."""
    return ", ".join(f"{alias}.{name}" for name in _PAGE_FIELDS)


def page_from_row(row: RowLike) -> Page:
    return Page(
        id=row["id"],
        source_id=row["source_id"],
        slug=row["slug"],
        title=row["title"],
        type=row["type"],
        frontmatter=_frontmatter(row["frontmatter"]),
        body=row["body"],
        content=row["content"],
        content_hash=row["content_hash"],
        visibility=row["visibility"],
        summary=row["summary"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        last_retrieved_at=row["last_retrieved_at"],
        deleted_at=row["deleted_at"],
    )


def _frontmatter(text: str) -> dict[str, Any]:
    # A page stored before YAML aliases were refused can hold their expansion
    # (tens of MB from a few hundred bytes): it is not decoded or served. The
    # page's own content is intact, and a put_page of it now says why.
    if len(text) > MAX_STORED_FRONTMATTER_CHARS:
        return {}
    value: dict[str, Any] = json.loads(text)
    return value


def memory_from_row(row: RowLike) -> Memory:
    return Memory(
        id=row["id"],
        uuid=row["uuid"],
        source_id=row["source_id"],
        text=row["text"],
        normalized_text=row["normalized_text"],
        kind=row["kind"],
        entity_slug=row["entity_slug"],
        visibility=row["visibility"],
        provenance=row["provenance"],
        session_id=row["session_id"],
        confidence=row["confidence"],
        valid_from=row["valid_from"],
        valid_until=row["valid_until"],
        expired_at=row["expired_at"],
        expired_reason=row["expired_reason"],
        superseded_by=row["superseded_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        origin=row["origin"],
        agent_id=row["agent_id"],
        org_id=row["org_id"],
        thread_id=row["thread_id"],
        memory_type=row["memory_type"],
        scope=row["scope"],
        importance=row["importance"],
        tags=tuple(json.loads(row["tags"])),
        metadata=json.loads(row["metadata"]),
        source_type=row["source_type"],
        source_ref=row["source_ref"],
        created_by=row["created_by"],
        decay_rate=row["decay_rate"],
        access_count=row["access_count"],
        last_accessed_at=row["last_accessed_at"],
        consolidation_state=row["consolidation_state"],
        quarantined=bool(row["quarantined"]),
        content_hash=row["content_hash"],
        prev_hash=row["prev_hash"],
        version=row["version"],
        deleted_at=row["deleted_at"],
        delete_strategy=row["delete_strategy"],
        redacted_at=row["redacted_at"],
        shared_by_grant=bool(row["shared_by_grant"]),
    )


EVENT_COLUMNS = (
    "seq, ts, source_id, kind, subject_type, subject_id, actor, payload, prev_hash, hash"
)


def event_row(event: Event) -> tuple[Any, ...]:
    """The values of ``EVENT_COLUMNS`` for one chained event (payload as stored JSON)."""
    return (
        event.seq, event.ts, event.source_id, event.kind, event.subject_type,
        event.subject_id, event.actor,
        json.dumps(event.payload, ensure_ascii=False, sort_keys=True),
        event.prev_hash, event.hash,
    )


def event_from_row(row: RowLike) -> Event:
    return Event(
        seq=row["seq"],
        ts=row["ts"],
        source_id=row["source_id"],
        kind=row["kind"],
        subject_type=row["subject_type"],
        subject_id=row["subject_id"],
        actor=row["actor"],
        payload=json.loads(row["payload"]),
        prev_hash=row["prev_hash"],
        hash=row["hash"],
    )


def checkpoint_from_row(row: RowLike) -> Checkpoint:
    return Checkpoint(
        seq=row["seq"],
        id=row["id"],
        agent_id=row["agent_id"],
        thread_id=row["thread_id"],
        branch_name=row["branch_name"],
        parent_id=row["parent_id"],
        merge_parent_id=row["merge_parent_id"],
        kind=row["kind"],
        label=row["label"],
        state_snapshot=json.loads(row["state_snapshot"]),
        metadata=json.loads(row["metadata"]),
        memory_refs=tuple(json.loads(row["memory_refs"])),
        event_cursor=row["event_cursor"],
        created_at=row["created_at"],
    )


def in_list(prefix: str, values: list[Any], params: dict[str, Any]) -> str:
    """Named placeholders for an IN list (added to ``params``)."""
    names = []
    for i, value in enumerate(values):
        params[f"{prefix}{i}"] = value
        names.append(f":{prefix}{i}")
    return ", ".join(names) or "NULL"

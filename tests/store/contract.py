"""Helpers shared by the contract tests: drafts, timestamps, chain checks.

Everything here goes through the Store protocol and core helpers only (no
SQL, no engine internals), so the same tests hold for every engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol

from brainkeep.core.audit import (
    GENESIS,
    event_body,
    event_hash,
    memory_hash,
    page_hash,
    page_state_hash,
)
from brainkeep.core.chunking import page_chunks
from brainkeep.core.clock import format_ts
from brainkeep.core.events import memory_insert
from brainkeep.core.ids import uuid7
from brainkeep.core.markdown import parse_page
from brainkeep.core.memory.facts import normalize_fact
from brainkeep.core.models import (
    DEFAULT_SOURCE,
    Event,
    Memory,
    MemoryDraft,
    NewEvent,
    Page,
    PageDraft,
)
from brainkeep.core.ports.store import Store

EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


def ts(seconds: float = 0) -> str:
    """A canonical timestamp ``seconds`` after 2025-01-01T00:00:00Z."""
    return format_ts(EPOCH + timedelta(seconds=seconds))


NOW = ts(0)

PRIVATE_PAGE = """---
visibility: private
---
# Secret plans

See [[people/alice]].
"""


def page_draft(slug: str, content: str, *, source_id: str = DEFAULT_SOURCE) -> PageDraft:
    """A draft built the way ``PageService.draft`` builds one."""
    parsed = parse_page(slug, content)
    return PageDraft(
        source_id=source_id,
        slug=slug,
        content=content,
        content_hash=page_hash(content),
        parsed=parsed,
        chunks=page_chunks(parsed.title, parsed.body, parsed.timeline),
    )


def put_page(store: Store, slug: str, content: str, now: str = NOW, *,
             source_id: str = DEFAULT_SOURCE) -> Page:
    """Create or replace a page in its own transaction, with its audit event."""
    draft = page_draft(slug, content, source_id=source_id)
    with store.transaction():
        existing = store.get_page(source_id, slug, include_deleted=True)
        page = store.save_page(draft, now, existing=existing)
        store.append_event(
            NewEvent("page.put", "page", str(page.id), {
                "content_hash": page.content_hash,
                "state_hash": page_state_hash(source_id=page.source_id, slug=page.slug,
                                              visibility=page.visibility,
                                              deleted_at=page.deleted_at),
            }, source_id=source_id),
            now,
        )
    return page


def new_event(n: int, *, kind: str = "test.event", subject_type: str = "test",
              payload: dict[str, object] | None = None) -> NewEvent:
    return NewEvent(kind=kind, subject_type=subject_type, subject_id=str(n),
                    payload={"n": n} if payload is None else payload)


def insert_memory(store: Store, draft: MemoryDraft, now: str = NOW) -> Memory:
    """Insert ``draft`` (the engine links it to its chain) with its ``memory.insert`` event.

    Inside the caller's transaction when there is one (nesting is a savepoint).
    The one place that knows insert_memory's arguments.
    """
    with store.transaction():
        memory = store.insert_memory(
            draft,
            uuid=uuid7(),
            now=now,
            normalized_text=normalize_fact(draft.text),
            content_hash=memory_hash(draft.text, draft.agent_id, now),
        )
        store.append_event(memory_insert(memory, actor=draft.agent_id or "local"), now)
    return memory


def chain_errors(events: list[Event]) -> list[str]:
    """Why ``events`` (all of them, in order) are not a gap-free, valid hash chain."""
    errors: list[str] = []
    prev = GENESIS
    for expected, event in enumerate(events, start=1):
        body = event_body(seq=event.seq, ts=event.ts, source_id=event.source_id,
                          kind=event.kind, subject_type=event.subject_type,
                          subject_id=event.subject_id, actor=event.actor,
                          payload=event.payload)
        if event.seq != expected:
            errors.append(f"seq {event.seq} where {expected} was expected")
        if event.prev_hash != prev:
            errors.append(f"seq {event.seq}: prev_hash does not link")
        if event_hash(prev, body) != event.hash:
            errors.append(f"seq {event.seq}: hash does not match its contents")
        prev = event.hash
    return errors


class ChainLink(Protocol):
    """The hashed fields of a memory (a ``Memory`` or a ``ChainRow``)."""

    uuid: str
    text: str
    agent_id: str
    thread_id: str | None
    created_at: str
    content_hash: str
    prev_hash: str | None


def memory_chain_errors(rows: Sequence[ChainLink]) -> list[str]:
    """Why the (agent, thread) chains of ``rows`` (in insert order) do not link."""
    errors: list[str] = []
    last: dict[tuple[str, str | None], str] = {}
    for m in rows:
        key = (m.agent_id, m.thread_id)
        if memory_hash(m.text, m.agent_id, m.created_at) != m.content_hash:
            errors.append(f"{m.uuid}: content_hash does not match its text")
        if m.prev_hash != last.get(key):
            errors.append(f"{m.uuid}: prev_hash does not link to the previous memory")
        last[key] = m.content_hash
    return errors

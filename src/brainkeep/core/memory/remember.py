"""Remember: validate a gRPC memory and insert it into the one memories table."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import timedelta

from brainkeep.core.clock import format_ts
from brainkeep.core.memory import validation as v
from brainkeep.core.memory import writes
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.models import visibility_for_scope
from brainkeep.core.models import MEMORY_TYPES, SCOPES, Event, Memory, MemoryDraft
from brainkeep.errors import InvalidInput

MAX_CONTENT_CHARS = 65_536
DEFAULT_IMPORTANCE = 0.5
PROCEDURAL_FLOOR = 0.8
WORKING_TTL_SECONDS = 3600
MAX_TTL_SECONDS = 100 * 365 * 24 * 3600


@dataclass(frozen=True)
class RememberInput:
    """A RememberRequest as plain values (``None`` = field not set)."""

    content: str
    memory_type: str | None = None
    scope: str | None = None
    importance: float | None = None
    tags: tuple[str, ...] = ()
    metadata: str | None = None
    thread_id: str | None = None
    ttl_seconds: int | None = None
    agent_id: str | None = None
    source_type: str | None = None
    source_ref: str | None = None
    org_id: str | None = None
    decay_rate: float | None = None
    created_by: str | None = None
    related_to: tuple[str, ...] = field(default_factory=tuple)


def _content(text: str) -> str:
    if not text or not text.strip():
        raise InvalidInput(
            "`content` is empty.",
            suggestion="Send the memory text in `content`.",
            field="content",
        )
    if len(text) > MAX_CONTENT_CHARS:
        raise InvalidInput(
            f"`content` is {len(text)} characters; the limit is {MAX_CONTENT_CHARS}.",
            suggestion="Split long material into several memories.",
            field="content",
        )
    return text


def _ttl(req: RememberInput, memory_type: str) -> int | None:
    if req.ttl_seconds is not None:
        if not 0 < req.ttl_seconds <= MAX_TTL_SECONDS:
            raise InvalidInput(
                f"`ttl_seconds` must be between 1 and {MAX_TTL_SECONDS}.", field="ttl_seconds"
            )
        return req.ttl_seconds
    # Working memory is scratch space: it expires within the hour unless told otherwise.
    return WORKING_TTL_SECONDS if memory_type == "working" else None


def build_draft(ctx: MnemoContext, req: RememberInput) -> MemoryDraft:
    """Validate ``req`` into a draft (raises ``InvalidInput``); nothing is written."""
    content = _content(req.content)
    agent = v.agent_id(req.agent_id)
    memory_type = v.choice(req.memory_type, MEMORY_TYPES, "memory_type", "episodic")
    scope = v.choice(req.scope, SCOPES, "scope", "private")
    importance = v.unit_float(req.importance, "importance")
    importance = DEFAULT_IMPORTANCE if importance is None else importance
    if memory_type == "procedural":
        # Procedures are how-to knowledge: never let them sink below the floor.
        importance = max(importance, PROCEDURAL_FLOOR)
    if req.decay_rate is not None and (not math.isfinite(req.decay_rate) or req.decay_rate < 0):
        raise InvalidInput("`decay_rate` must be a finite number >= 0.", field="decay_rate")
    ttl = _ttl(req, memory_type)
    now = ctx.clock.now()
    return MemoryDraft(
        text=content,
        source_id=ctx.source_id,
        kind="event" if memory_type == "episodic" else "fact",
        visibility=visibility_for_scope(scope),
        provenance=f"grpc:{agent}",
        valid_until=format_ts(now + timedelta(seconds=ttl)) if ttl else None,
        origin="grpc",
        agent_id=agent,
        org_id=v.org_id(req.org_id),
        thread_id=v.label(req.thread_id, "thread_id"),
        memory_type=memory_type,
        scope=scope,
        importance=importance,
        tags=v.tags(req.tags),
        metadata=v.json_object(req.metadata, "metadata"),
        source_type=v.label(req.source_type, "source_type"),
        source_ref=v.label(req.source_ref, "source_id", max_chars=2048),
        created_by=v.label(req.created_by, "created_by"),
        decay_rate=req.decay_rate,
        related_to=v.id_list(req.related_to, "related_to"),
    )


def insert(ctx: MnemoContext, draft: MemoryDraft, now: str, *,
           topic_version: int | None = None) -> tuple[Memory, Event]:
    """Insert ``draft`` as its agent, through the one write path (inside a transaction)."""
    return writes.insert(ctx.store, draft, now, actor=draft.agent_id,
                         topic_version=topic_version)


def remember(ctx: MnemoContext, req: RememberInput) -> Memory:
    """Store one memory; returns the stored row (its ``uuid`` and ``content_hash``).

    Raises:
        InvalidInput: any field breaks its rule (nothing is written).
    """
    draft = build_draft(ctx, req)
    vector = ctx.indexer.embed_memory(draft.text) if ctx.indexer is not None else None

    def work() -> Memory:
        memory, _ = insert(ctx, draft, ctx.clock.now_ts())
        if vector is not None and ctx.indexer is not None:
            ctx.indexer.write_memory(memory, vector)
        return memory

    return ctx.transact(work)

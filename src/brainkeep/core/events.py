"""One event builder per memory event kind, whichever protocol wrote it.

The MCP verbs (``core/facts.py``) and the Mnemo services (``core/mnemo/``)
both build memory events here, so one kind always carries one payload
(docs/audit.md lists them). Every memory payload starts with the same base:

* ``id`` (the integer row id) and ``content_hash`` (``verify`` compares the
  newest recorded hash with the column);
* ``agent_id``: who acted (the event's actor); ``owner``: whose memory it is
  (``memories.agent_id``, empty for MCP facts); ``org_id`` and ``thread_id``.
  TrajectoryAudit and Verify slice the log by these, so an MCP forget of a
  gRPC memory counts for its owner.

Payloads never carry text or metadata: erasure must not leave content in the
immutable log.
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.models import Memory, NewEvent


def _memory_event(kind: str, memory: Memory, actor: str, fields: dict[str, Any]) -> NewEvent:
    payload: dict[str, Any] = {
        "id": memory.id,
        "content_hash": memory.content_hash,
        "agent_id": actor,
        "owner": memory.agent_id,
        "org_id": memory.org_id,
        "thread_id": memory.thread_id,
        **fields,
    }
    return NewEvent(kind=kind, subject_type="memory", subject_id=memory.uuid, payload=payload,
                    source_id=memory.source_id, actor=actor)


def memory_insert(memory: Memory, *, actor: str, topic_version: int | None = None) -> NewEvent:
    """A stored memory (``memory`` as ``insert_memory`` returned it, chain link included)."""
    return _memory_event("memory.insert", memory, actor, {
        "prev_hash": memory.prev_hash,
        "origin": memory.origin,
        "kind": memory.kind,
        "memory_type": memory.memory_type,
        "scope": memory.scope,
        "visibility": memory.visibility,
        "entity_slug": memory.entity_slug,
        "topic_version": topic_version,
    })


def memory_expire(memory: Memory, *, actor: str, reason: str | None,
                  superseded_by: int | None = None) -> NewEvent:
    """An expired memory (MCP forget, supersession).

    ``superseded_by`` is the newer memory's row id, like ``id`` and the
    ``memories.superseded_by`` column.
    """
    return _memory_event("memory.expire", memory, actor,
                         {"reason": reason, "superseded_by": superseded_by})


def memory_delete(memory: Memory, *, actor: str, strategy: str) -> NewEvent:
    """A soft delete, archive, consolidate or hard delete.

    ``prev_hash`` is the row's chain link: for a hard delete the verifier
    bridges the gap the missing row leaves with it.
    """
    return _memory_event("memory.delete", memory, actor,
                         {"strategy": strategy, "prev_hash": memory.prev_hash})


def memory_redact(memory: Memory, *, actor: str) -> NewEvent:
    """Text replaced by a placeholder; ``content_hash`` stays the chain link."""
    return _memory_event("memory.redact", memory, actor, {"strategy": "redact"})


def memory_decay(memory: Memory, *, actor: str, importance_after: float) -> NewEvent:
    """Importance lowered (``memory`` holds the importance before)."""
    return _memory_event("memory.decay", memory, actor, {
        "strategy": "decay",
        "importance_before": memory.importance,
        "importance_after": importance_after,
    })


def memory_scope(memory: Memory, *, actor: str, scope_after: str) -> NewEvent:
    """Scope widened (``memory`` holds the scope before)."""
    return _memory_event("memory.scope", memory, actor,
                         {"scope_before": memory.scope, "scope_after": scope_after})

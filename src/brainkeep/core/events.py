"""One event builder per memory event kind, whichever protocol wrote it.

The MCP verbs (``core/memory/facts.py``) and the Mnemo services (``core/memory/``)
both build memory events here, so one kind always carries one payload
(docs/audit.md lists them). Every memory payload starts with the same base:

* ``id`` (the integer row id) and ``content_hash`` (``verify`` compares the
  newest recorded hash with the column);
* ``state_hash``: the access state hash (core/audit.py) of the row as this
  event leaves it (null once a hard delete removed it); ``verify`` compares
  the newest one with the row, so a visibility, scope, lifecycle, tag, …
  edit made behind the server's back is found. Builders of changing events
  therefore take ``after``: the row re-read after the change;
* ``agent_id``: who acted (the event's actor); ``owner``: whose memory it is
  (``memories.agent_id``, empty for MCP facts); ``org_id`` and ``thread_id``.
  TrajectoryAudit and Verify slice the log by these, so an MCP forget of a
  gRPC memory counts for its owner.

Payloads never carry text or metadata: erasure must not leave content in the
immutable log.
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.audit import memory_state_hash
from brainkeep.core.memory.models import Acl, Delegation
from brainkeep.core.models import Memory, NewEvent


def _memory_event(kind: str, memory: Memory, actor: str, fields: dict[str, Any],
                  after: Memory | None) -> NewEvent:
    payload: dict[str, Any] = {
        "id": memory.id,
        "content_hash": memory.content_hash,
        "state_hash": None if after is None else memory_state_hash(after),
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
        "quarantined": memory.quarantined,
    }, memory)


def memory_expire(memory: Memory, *, actor: str, reason: str | None, after: Memory,
                  superseded_by: int | None = None) -> NewEvent:
    """An expired memory (MCP forget, supersession); ``after``: the expired row.

    ``superseded_by`` is the newer memory's row id, like ``id`` and the
    ``memories.superseded_by`` column.
    """
    return _memory_event("memory.expire", memory, actor,
                         {"reason": reason, "superseded_by": superseded_by}, after)


def memory_delete(memory: Memory, *, actor: str, strategy: str,
                  after: Memory | None) -> NewEvent:
    """A soft delete, archive, consolidate or hard delete (``after`` None: row removed).

    ``prev_hash`` is the row's chain link: for a hard delete the verifier
    bridges the gap the missing row leaves with it.
    """
    return _memory_event("memory.delete", memory, actor,
                         {"strategy": strategy, "prev_hash": memory.prev_hash}, after)


def memory_redact(memory: Memory, *, actor: str, after: Memory) -> NewEvent:
    """Text replaced by a placeholder; ``content_hash`` stays the chain link.

    ``after`` (the redacted row) records ``redacted_at`` in ``state_hash``:
    a row redacted behind the server's back has no such event.
    """
    return _memory_event("memory.redact", memory, actor, {"strategy": "redact"}, after)


def memory_decay(memory: Memory, *, actor: str, importance_after: float) -> NewEvent:
    """Importance lowered (``memory`` holds the importance before)."""
    return _memory_event("memory.decay", memory, actor, {
        "strategy": "decay",
        "importance_before": memory.importance,
        "importance_after": importance_after,
    }, memory)


def memory_scope(memory: Memory, *, actor: str, scope_after: str, after: Memory) -> NewEvent:
    """Scope changed (``memory`` holds the scope before, ``after`` the changed row)."""
    return _memory_event("memory.scope", memory, actor,
                         {"scope_before": memory.scope, "scope_after": scope_after}, after)


def memory_release(memory: Memory, *, actor: str, quarantine_id: int, after: Memory) -> NewEvent:
    """The operator released a held memory (``after``: the row, ``quarantined`` now false).

    ``state_hash`` records the cleared flag, so ``verify`` finds a row
    un-quarantined behind the server's back (its state no longer matches).
    """
    return _memory_event("memory.release", memory, actor,
                         {"quarantine_id": quarantine_id}, after)


def memory_reject(memory: Memory, *, actor: str, quarantine_id: int, after: Memory) -> NewEvent:
    """The operator rejected a held memory: deleted (strategy ``reject``), still quarantined."""
    return _memory_event("memory.reject", memory, actor,
                         {"quarantine_id": quarantine_id, "strategy": "reject"}, after)



def acl_revoke(acl: Acl, *, actor: str, source_id: str) -> NewEvent:
    """An ACL revoked: its row is removed (``acl``: the row as it was).

    ``acl_hash`` null records "no row from here on": ``verify`` accepts the
    missing row, and flags a row put back behind the server's back.
    """
    return NewEvent(kind="acl.revoke", subject_type="acl", subject_id=acl.id, payload={
        "memory_id": acl.memory_uuid, "owner": acl.owner, "grantee": acl.grantee,
        "permission": acl.permission, "granted_by": acl.granted_by,
        "expires_at": acl.expires_at, "agent_id": actor, "acl_hash": None,
    }, source_id=source_id, actor=actor)


def delegation_revoke(delegation: Delegation, *, actor: str, source_id: str,
                      cascaded_from: str | None = None) -> NewEvent:
    """A delegation revoked, row removed; ``cascaded_from``: the revoked ancestor.

    Revoking a delegation revokes its re-delegations, one event each, so the
    log names every grant that stopped (``delegation_hash`` null: no row).
    """
    d = delegation
    return NewEvent(kind="delegation.revoke", subject_type="delegation", subject_id=d.id,
                    payload={
                        "owner": d.owner, "delegator": d.delegator, "delegate": d.delegate,
                        "permission": d.permission, "selector": d.selector, "depth": d.depth,
                        "parent_id": d.parent_id, "expires_at": d.expires_at,
                        "agent_id": actor, "cascaded_from": cascaded_from,
                        "delegation_hash": None,
                    }, source_id=source_id, actor=actor)

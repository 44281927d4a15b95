"""The hash chain: canonical event encoding and record hashes.

Exact encoding (documented in docs/audit.md, and frozen: changing it breaks
every existing chain):

* ``canonical(obj)`` = ``json.dumps(obj, sort_keys=True, separators=(",", ":"),
  ensure_ascii=False)`` encoded as UTF-8.
* event hash = ``sha256(prev_hash_hex + "\\n" + canonical(body))`` in lowercase
  hex, where ``body`` is ``{"seq", "ts", "source_id", "kind", "subject_type",
  "subject_id", "actor", "payload"}`` of the event. The first event's
  ``prev_hash`` is ``GENESIS`` (64 zeros).
* page hash = ``sha256(content)`` of the raw markdown.
* memory content hash (the gRPC ``content_hash``) =
  ``sha256(canonical({"content", "agent_id", "created_at"}))``; memories are
  chained per (agent, thread) through ``prev_hash``.
* access state hash (``state_hash`` in event payloads) =
  ``sha256("state\n" + canonical(fields))`` over every column that decides
  who may read a row or whether it is live (``MEMORY_STATE_FIELDS``,
  ``PAGE_STATE_FIELDS``, ``ACL_STATE_FIELDS``, ``DELEGATION_STATE_FIELDS``).
  The content hash stays the chain link; the state hash is recorded by every
  event that changes such a column, so ``verify`` can compare the row with it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from brainkeep.core.models import Event, Memory, NewEvent

GENESIS = "0" * 64

# Columns that decide who may read a memory (tenant, owner, scope, quarantine,
# entity/provenance/tags that selectors and delegations match) or whether it
# is live (lifecycle timestamps, supersession). Content is the content hash's.
MEMORY_STATE_FIELDS = (
    "source_id", "org_id", "agent_id", "thread_id", "scope", "visibility", "quarantined",
    "entity_slug", "provenance", "tags", "valid_from", "valid_until", "expired_at",
    "deleted_at", "redacted_at", "superseded_by", "shared_by_grant",
)
PAGE_STATE_FIELDS = ("source_id", "slug", "visibility", "deleted_at")
ACL_STATE_FIELDS = (
    "id", "memory_uuid", "grantee", "permission", "granted_by", "created_at", "expires_at",
    "revoked_at",
)
# Delegation items that name memories are checked against the logged
# ``memory_ids`` instead: a logged hard delete removes them on purpose.
DELEGATION_STATE_FIELDS = (
    "id", "owner", "delegator", "delegate", "permission", "selector", "depth", "max_depth",
    "parent_id", "created_at", "expires_at", "revoked_at", "tags",
)


def canonical(obj: Any) -> bytes:
    """The canonical byte encoding hashed everywhere in the audit chain."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def event_body(
    *,
    seq: int,
    ts: str,
    source_id: str,
    kind: str,
    subject_type: str,
    subject_id: str,
    actor: str,
    payload: dict[str, Any],
) -> dict[str, Any]:
    """The fields of an event that its hash covers."""
    return {
        "seq": seq,
        "ts": ts,
        "source_id": source_id,
        "kind": kind,
        "subject_type": subject_type,
        "subject_id": subject_id,
        "actor": actor,
        "payload": payload,
    }


def event_input(prev_hash: str, body: dict[str, Any]) -> bytes:
    """The exact bytes an event's hash covers."""
    return prev_hash.encode() + b"\n" + canonical(body)


def event_hash(prev_hash: str, body: dict[str, Any]) -> str:
    """Hash of one event, chained to the previous event's hash."""
    return hashlib.sha256(event_input(prev_hash, body)).hexdigest()


def next_event(event: NewEvent, tail: tuple[int, str] | None, now: str) -> Event:
    """``event`` chained after the log's ``tail`` (its newest ``(seq, hash)``, None if empty).

    What every engine appends, inside its write-serialized transaction.
    """
    seq = 1 if tail is None else int(tail[0]) + 1
    prev = GENESIS if tail is None else str(tail[1])
    body = event_body(
        seq=seq, ts=now, source_id=event.source_id, kind=event.kind,
        subject_type=event.subject_type, subject_id=event.subject_id, actor=event.actor,
        payload=event.payload,
    )
    return Event(seq, now, event.source_id, event.kind, event.subject_type,
                 event.subject_id, event.actor, event.payload, prev, event_hash(prev, body))


def page_hash(content: str) -> str:
    """Hash of a page's raw markdown."""
    return hashlib.sha256(content.encode()).hexdigest()


def memory_input(content: str, agent_id: str, created_at: str) -> bytes:
    """The exact bytes a memory's content hash covers."""
    return canonical({"content": content, "agent_id": agent_id, "created_at": created_at})


def memory_hash(content: str, agent_id: str, created_at: str) -> str:
    """The gRPC-visible content hash of a memory."""
    return hashlib.sha256(memory_input(content, agent_id, created_at)).hexdigest()


def state_input(fields: dict[str, Any]) -> bytes:
    """The exact bytes an access state hash covers."""
    return b"state\n" + canonical(fields)


def state_hash(fields: dict[str, Any]) -> str:
    """The access state hash of one row's readability/liveness columns."""
    return hashlib.sha256(state_input(fields)).hexdigest()


def memory_state_of(columns: Mapping[str, Any]) -> dict[str, Any]:
    """The hashed access state from a memory row's values (``tags``: the parsed list).

    Tags count as a sorted set and the two flags as booleans, whatever the
    engine stores them as.
    """
    fields: dict[str, Any] = {name: columns[name] for name in MEMORY_STATE_FIELDS}
    fields["tags"] = sorted(set(columns["tags"]))
    fields["quarantined"] = bool(columns["quarantined"])
    fields["shared_by_grant"] = bool(columns["shared_by_grant"])
    return fields


def memory_state(memory: Memory) -> dict[str, Any]:
    """The hashed access state of a memory row (tags as a sorted set)."""
    return memory_state_of({name: getattr(memory, name) for name in MEMORY_STATE_FIELDS})


def memory_state_hash(memory: Memory) -> str:
    """``state_hash`` of a memory row as it stands."""
    return state_hash(memory_state(memory))


def page_state(*, source_id: str, slug: str, visibility: str,
               deleted_at: str | None) -> dict[str, Any]:
    """The hashed access state of a page row: where it lives, who reads it, whether it is live."""
    return {"source_id": source_id, "slug": slug, "visibility": visibility,
            "deleted_at": deleted_at}


def page_state_hash(*, source_id: str, slug: str, visibility: str,
                    deleted_at: str | None) -> str:
    """``state_hash`` of a page row."""
    return state_hash(page_state(source_id=source_id, slug=slug, visibility=visibility,
                                 deleted_at=deleted_at))


def acl_state_hash(*, id: str, memory_uuid: str, grantee: str, permission: str,
                   granted_by: str, created_at: str, expires_at: str | None,
                   revoked_at: str | None = None) -> str:
    """``acl_hash`` of one ``mnemo_acls`` row (an ACL grants read access until revoked)."""
    return state_hash({"id": id, "memory_uuid": memory_uuid, "grantee": grantee,
                       "permission": permission, "granted_by": granted_by,
                       "created_at": created_at, "expires_at": expires_at,
                       "revoked_at": revoked_at})


def delegation_state_hash(*, id: str, owner: str, delegator: str, delegate: str,
                          permission: str, selector: str, depth: int, max_depth: int,
                          parent_id: str | None, created_at: str, expires_at: str | None,
                          tags: list[str], revoked_at: str | None = None) -> str:
    """``delegation_hash`` of one ``mnemo_delegations`` row and its tag items."""
    return state_hash({"id": id, "owner": owner, "delegator": delegator, "delegate": delegate,
                       "permission": permission, "selector": selector, "depth": depth,
                       "max_depth": max_depth, "parent_id": parent_id,
                       "created_at": created_at, "expires_at": expires_at,
                       "revoked_at": revoked_at, "tags": sorted(set(tags))})

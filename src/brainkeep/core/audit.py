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
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS = "0" * 64


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


def event_hash(prev_hash: str, body: dict[str, Any]) -> str:
    """Hash of one event, chained to the previous event's hash."""
    return hashlib.sha256(prev_hash.encode() + b"\n" + canonical(body)).hexdigest()


def page_hash(content: str) -> str:
    """Hash of a page's raw markdown."""
    return hashlib.sha256(content.encode()).hexdigest()


def memory_hash(content: str, agent_id: str, created_at: str) -> str:
    """The gRPC-visible content hash of a memory."""
    return hashlib.sha256(
        canonical({"content": content, "agent_id": agent_id, "created_at": created_at})
    ).hexdigest()

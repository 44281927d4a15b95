"""Step 1 of the one verifier (core/verify.py): the event log, link by link.

Sequence numbers start at 1 without gaps, each ``prev_hash`` is the previous
event's hash, each hash matches its body (core/audit.py), and every
``chain.checkpoint`` signs the head before it (core/anchor.py). The walk
stops at the first broken event: nothing after it can be trusted. The full
walk reads lean rows (``walk_log``); the incremental one reads whole events,
because it also notes what each one touched (``walk_events_since``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from brainkeep.core.anchor import CHECKPOINT_KIND, ChainHead, checkpoint_problem
from brainkeep.core.audit import GENESIS, event_body, event_hash
from brainkeep.core.memory_checks import BrokenRecord
from brainkeep.core.models import Event
from brainkeep.core.ports.events import EventLog
from brainkeep.core.verify_since import Touched


@dataclass(frozen=True)
class EventWalk:
    checked: int
    head: ChainHead | None
    checkpoints: int
    broken: tuple[BrokenRecord, ...]


def _link_reason(seq: int, prev_hash: str, expected: int, prev: str) -> str | None:
    if seq != expected:
        return f"sequence gap: expected {expected}, found {seq}"
    if prev_hash != prev:
        return "prev_hash does not match the previous event"
    return None


_HASH_REASON = "event hash does not match its contents"


def walk_events_since(store: EventLog, trusted: Ed25519PublicKey | None,
                 since: ChainHead, touched: Touched) -> EventWalk:
    """The log after ``since`` in order: links, hashes, checkpoint signatures; the head."""
    checked, checkpoints = 0, 0
    prev, expected = since.hash, since.seq + 1
    head: ChainHead | None = since
    broken: list[BrokenRecord] = []
    for event in store.iter_events(after_seq=since.seq):
        checked += 1
        reason = _link_reason(event.seq, event.prev_hash, expected, prev)
        if reason is None and event_hash(prev, _body(event)) != event.hash:
            reason = _HASH_REASON
        if reason:
            broken.append(BrokenRecord("event", str(event.seq), reason))
            break
        if event.kind == CHECKPOINT_KIND:
            checkpoints += 1
            problem = checkpoint_problem(event, trusted)
            if problem and not broken:
                broken.append(BrokenRecord("event", str(event.seq), problem))
        touched.add(event)
        head = ChainHead(event.seq, event.hash)
        prev, expected = event.hash, expected + 1
    return EventWalk(checked, head, checkpoints, tuple(broken))


def _body(event: Event) -> dict[str, Any]:
    return event_body(seq=event.seq, ts=event.ts, source_id=event.source_id, kind=event.kind,
                      subject_type=event.subject_type, subject_id=event.subject_id,
                      actor=event.actor, payload=event.payload)


def walk_log(store: EventLog, trusted: Ed25519PublicKey | None) -> EventWalk:
    """The whole log, the same checks as ``walk_events_since`` on lean rows.

    The engine renders each event's hash input (core/integrity_rows.py); an
    event whose rendering does not hash to its stored hash is read in full
    and judged by the exact rule, as are checkpoints (their signatures).
    """
    checked = checkpoints = 0
    prev, expected = GENESIS, 1
    broken: list[BrokenRecord] = []
    sha256 = hashlib.sha256
    for seq, kind, prev_hash, digest, hashed in store.iter_event_digests():
        checked += 1
        reason = _link_reason(seq, prev_hash, expected, prev)
        if reason is None and (hashed is None or sha256(hashed).hexdigest() != digest):
            event = store.event_at(seq)
            if event is None or event_hash(prev, _body(event)) != digest:
                reason = _HASH_REASON
        if reason:
            broken.append(BrokenRecord("event", str(seq), reason))
            break
        if kind == CHECKPOINT_KIND:
            checkpoints += 1
            event = store.event_at(seq)
            problem = _HASH_REASON if event is None else checkpoint_problem(event, trusted)
            if problem and not broken:
                broken.append(BrokenRecord("event", str(seq), problem))
        prev, expected = digest, expected + 1
    head = None if expected == 1 else ChainHead(expected - 1, prev)
    return EventWalk(checked, head, checkpoints, tuple(broken))

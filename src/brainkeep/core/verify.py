"""`brainkeep verify`: walk the event chain and check records against it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from brainkeep.core.audit import GENESIS, event_body, event_hash, memory_hash, page_hash
from brainkeep.store.base import Store


@dataclass(frozen=True)
class BrokenRecord:
    """The first thing that failed verification."""

    kind: str  # event | page | memory
    id: str
    reason: str
    slug: str | None = None


@dataclass(frozen=True)
class VerifyReport:
    """Chain status: valid, how much was checked, the first break."""

    valid: bool
    events_checked: int
    pages_checked: int
    memories_checked: int
    first_broken: BrokenRecord | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["checked"] = self.events_checked
        return data


def verify_brain(store: Store) -> VerifyReport:
    """Recompute every event hash, then every page and memory hash.

    A row edited behind the server's back no longer matches the hash its
    newest event recorded (or its own stored hash), so the report names it.
    """
    events = 0
    prev = GENESIS
    expected_seq = 1
    for event in store.iter_events():
        events += 1
        body = event_body(
            seq=event.seq,
            ts=event.ts,
            source_id=event.source_id,
            kind=event.kind,
            subject_type=event.subject_type,
            subject_id=event.subject_id,
            actor=event.actor,
            payload=event.payload,
        )
        reason = None
        if event.seq != expected_seq:
            reason = f"sequence gap: expected {expected_seq}, found {event.seq}"
        elif event.prev_hash != prev:
            reason = "prev_hash does not match the previous event"
        elif event_hash(prev, body) != event.hash:
            reason = "event hash does not match its contents"
        if reason:
            return VerifyReport(False, events, 0, 0, BrokenRecord("event", str(event.seq), reason))
        prev = event.hash
        expected_seq += 1

    recorded = store.recorded_hashes("page")
    pages = 0
    for page_id, slug, content, stored_hash in store.iter_page_contents():
        pages += 1
        actual = page_hash(content)
        reason = None
        if actual != stored_hash:
            reason = "content does not match its stored hash"
        elif recorded.get(page_id) != actual:
            reason = "content does not match the hash recorded in the event log"
        if reason:
            return VerifyReport(
                False, events, pages, 0, BrokenRecord("page", page_id, reason, slug=slug)
            )

    recorded = store.recorded_hashes("memory")
    memories = 0
    for uuid, text, agent_id, created_at, stored_hash, redacted_at in store.iter_memory_contents():
        memories += 1
        reason = None
        # A redacted memory's text was replaced on purpose (logged by a
        # memory.redact event); its original hash stays as the chain link.
        if not redacted_at and memory_hash(text, agent_id, created_at) != stored_hash:
            reason = "text does not match its stored content hash"
        elif recorded.get(uuid) != stored_hash:
            reason = "content hash does not match the hash recorded in the event log"
        if reason:
            return VerifyReport(
                False, events, pages, memories, BrokenRecord("memory", uuid, reason)
            )
    return VerifyReport(True, events, pages, memories)

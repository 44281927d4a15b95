"""The one verifier: the event log, then every page and memory against it.

``brainkeep verify`` (``verify_brain``) and the gRPC Verify RPC
(``verify_memories``) run the same walk (``walk``); they differ only in the
shape they report. In order:

1. **Event log**: sequence numbers start at 1 without gaps, each
   ``prev_hash`` is the previous event's hash, each hash matches its body.
   The walk stops at the first broken event: nothing after it can be trusted.
2. **Pages** (whole brain only): ``sha256(content)`` equals the stored hash
   and the hash the page's newest event recorded.
3. **Memories**, per (agent, thread) chain, oldest first (the whole brain, or
   one agent and/or thread slice):

   a. the text still hashes to ``content_hash`` (redacted rows are exempt:
      their text was replaced on purpose, and a ``memory.redact`` event says
      so);
   b. ``content_hash`` equals the hash its newest event recorded;
   c. ``prev_hash`` links to the previous memory of the same chain. A gap is
      accepted only when bridged by logged hard deletes, whose events record
      the removed row's ``content_hash`` and ``prev_hash``;
   d. every logged insert still has its row, unless a hard delete was logged.

Soft deletes, decays, expiries and scope changes never touch hashed fields,
so they keep chains valid; threads are separate chains. The Mnemo reference
broke on both.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from brainkeep.core.audit import GENESIS, event_body, event_hash, memory_hash, page_hash
from brainkeep.core.mnemo.models import VerifyOutcome
from brainkeep.store.base import Store


@dataclass(frozen=True)
class BrokenRecord:
    """One thing that failed verification."""

    kind: str  # event | page | memory
    id: str
    reason: str
    slug: str | None = None

    @property
    def label(self) -> str:
        """The id the gRPC ``first_broken_at`` carries (memory uuid, ``event:<seq>``, …)."""
        if self.kind == "memory":
            return self.id
        return f"{self.kind}:{self.slug or self.id}"


@dataclass(frozen=True)
class Walk:
    """Everything one verification walk counted and found, first break first."""

    events_checked: int
    pages_checked: int
    memories_checked: int
    memories_verified: int
    broken: tuple[BrokenRecord, ...]


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


def _links(actual: str | None, expected: str | None, bridge: dict[str, str | None]) -> bool:
    """True when ``actual`` reaches ``expected`` through hard-deleted rows only."""
    seen: set[str] = set()
    hop = actual
    while hop != expected:
        if hop is None or hop in seen or hop not in bridge:
            return False
        seen.add(hop)
        hop = bridge[hop]
    return True


def _walk_events(store: Store) -> tuple[int, BrokenRecord | None]:
    """(events checked, first broken event) of the whole log."""
    checked, prev, expected = 0, GENESIS, 1
    for event in store.iter_events():
        checked += 1
        body = event_body(seq=event.seq, ts=event.ts, source_id=event.source_id,
                          kind=event.kind, subject_type=event.subject_type,
                          subject_id=event.subject_id, actor=event.actor, payload=event.payload)
        reason = None
        if event.seq != expected:
            reason = f"sequence gap: expected {expected}, found {event.seq}"
        elif event.prev_hash != prev:
            reason = "prev_hash does not match the previous event"
        elif event_hash(prev, body) != event.hash:
            reason = "event hash does not match its contents"
        if reason:
            return checked, BrokenRecord("event", str(event.seq), reason)
        prev, expected = event.hash, expected + 1
    return checked, None


def _walk_pages(store: Store) -> tuple[int, list[BrokenRecord]]:
    recorded = store.recorded_hashes("page")
    checked, broken = 0, []
    for page_id, slug, content, stored_hash in store.iter_page_contents():
        checked += 1
        actual = page_hash(content)
        if actual != stored_hash:
            broken.append(BrokenRecord("page", page_id, "content does not match its stored hash",
                                       slug=slug))
        elif recorded.get(page_id) != actual:
            broken.append(BrokenRecord(
                "page", page_id, "content does not match the hash recorded in the event log",
                slug=slug))
    return checked, broken


def _walk_memories(store: Store, agent_id: str | None, thread_id: str | None,
                   created_before: str | None, check_log: bool
                   ) -> tuple[int, int, list[BrokenRecord]]:
    """(memories checked, verified, breaks) of the chains in scope."""
    rows = store.mnemo_chain_rows(agent_id, thread_id, created_before=created_before)
    recorded = store.recorded_hashes("memory")
    tombstones = store.mnemo_tombstones()
    bridge = {content_hash: prev for _, content_hash, prev in tombstones}
    broken: list[BrokenRecord] = []
    verified = 0
    chain_key: tuple[str, str | None] | None = None
    previous: str | None = None
    for row in rows:
        if (row.agent_id, row.thread_id) != chain_key:
            chain_key, previous = (row.agent_id, row.thread_id), None
        reason = None
        if not row.redacted_at and (
            memory_hash(row.text, row.agent_id, row.created_at) != row.content_hash
        ):
            reason = "text does not match its stored content_hash"
        elif recorded.get(row.uuid) != row.content_hash:
            reason = "content_hash does not match the hash recorded in the event log"
        elif not _links(row.prev_hash, previous, bridge):
            reason = "prev_hash does not link to the previous memory of its chain"
        if reason:
            broken.append(BrokenRecord("memory", row.uuid, reason))
        else:
            verified += 1
        previous = row.content_hash
    checked = len(rows)
    if check_log:
        present = {row.uuid for row in rows}
        deleted = {uuid for uuid, _, _ in tombstones}
        for uuid, _ in store.mnemo_inserted(agent_id, thread_id):
            if uuid not in present and uuid not in deleted:
                checked += 1
                broken.append(BrokenRecord(
                    "memory", uuid, "memory row is gone but no hard_delete was logged"))
    return checked, verified, broken


def walk(store: Store, *, agent_id: str | None = None, thread_id: str | None = None,
         created_before: str | None = None, check_log: bool = True) -> Walk:
    """Run every check in scope (see the module docstring).

    Args:
        agent_id, thread_id: the memory slice (None: every agent / thread).
        created_before: only memories created at or before this timestamp
            (Replay's chain as of a checkpoint).
        check_log: also walk the event log (and, for the whole brain, pages)
            and look for logged inserts whose row vanished.
    """
    events, event_break = _walk_events(store) if check_log else (0, None)
    whole = agent_id is None and thread_id is None and created_before is None
    pages, page_breaks = _walk_pages(store) if check_log and whole else (0, [])
    memories, verified, memory_breaks = _walk_memories(
        store, agent_id, thread_id, created_before, check_log)
    broken = ([event_break] if event_break else []) + page_breaks + memory_breaks
    return Walk(events, pages, memories, verified, tuple(broken))


def verify_brain(store: Store) -> VerifyReport:
    """The whole brain, as ``brainkeep verify`` reports it.

    A row edited behind the server's back no longer matches the hash its
    newest event recorded (or its own stored hash, or its chain link), so the
    report names it.
    """
    result = walk(store)
    first = result.broken[0] if result.broken else None
    return VerifyReport(first is None, result.events_checked, result.pages_checked,
                        result.memories_checked, first)


def verify_memories(store: Store, agent_id: str | None, thread_id: str | None, *,
                    created_before: str | None = None, check_log: bool = True) -> VerifyOutcome:
    """A memory slice (all agents when ``agent_id`` is None), as gRPC Verify reports it.

    Totals count memories; a broken event (or, for the whole brain, page)
    still makes the outcome invalid and is named first.
    """
    result = walk(store, agent_id=agent_id, thread_id=thread_id,
                  created_before=created_before, check_log=check_log)
    if result.broken:
        first = result.broken[0]
        return VerifyOutcome(False, result.memories_checked, result.memories_verified,
                             first.label, first.reason)
    return VerifyOutcome(True, result.memories_checked, result.memories_verified)

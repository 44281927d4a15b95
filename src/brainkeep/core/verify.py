"""The one verifier: the event log, then every row that decides readability.

``brainkeep verify`` (``verify_brain``) and the gRPC Verify RPC
(``verify_memories``) run the same walk (``walk``); they differ only in the
shape they report. In order:

1. **Event log**: sequence numbers start at 1 without gaps, each
   ``prev_hash`` is the previous event's hash, each hash matches its body,
   and every ``chain.checkpoint`` signs the head before it with a valid
   Ed25519 signature (the trusted key's, when one is given; core/anchor.py).
   The walk stops at the first broken event: nothing after it can be trusted.
   The last event walked is the chain **head**.
2. **Pages, ACLs and delegations** (core/access_checks.py): content and
   access state against the newest recorded hashes, and rows the log records
   that are gone. Whole-brain state, so they run whenever the log is checked,
   for a memory slice too (a flipped page or a forged grant is not "someone
   else's problem").
3. **Memories**, per (agent, thread) chain, oldest first (the whole brain, or
   one agent and/or thread slice):

   a. the text still hashes to ``content_hash``; a redacted row (its
      ``redacted_at`` is covered by the state hash of its ``memory.redact``
      event) must hold the redaction placeholder;
   b. ``content_hash`` equals the hash its newest event recorded;
   c. ``prev_hash`` links to the previous memory of the same chain. A gap is
      accepted only when bridged by logged hard deletes, whose events record
      the removed row's ``content_hash`` and ``prev_hash``;
   d. the access state (scope, visibility, tenant, owner, quarantine, entity,
      provenance, tags, lifecycle timestamps, …; core/audit.py) hashes to the
      ``state_hash`` its newest event recorded, and its ``memory_tags`` rows
      match its tags;
   e. every logged insert still has its row, unless a hard delete was logged.

Every scan streams rows (one cursor each), so cost is linear in the brain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from brainkeep.core.access_checks import Problem, check_grants, check_pages, unrecorded_ok
from brainkeep.core.anchor import CHECKPOINT_KIND, ChainHead, checkpoint_problem
from brainkeep.core.audit import GENESIS, event_body, event_hash, memory_hash, memory_state_hash
from brainkeep.core.integrity_rows import MemoryState
from brainkeep.core.mnemo.models import REDACTED_TEXT, VerifyOutcome
from brainkeep.store.base import Store


@dataclass(frozen=True)
class BrokenRecord:
    """One thing that failed verification."""

    kind: str  # event | page | memory | acl | delegation
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
    head: ChainHead | None = None
    checkpoints: int = 0
    grants_checked: int = 0


@dataclass(frozen=True)
class VerifyReport:
    """Chain status: valid, how much was checked, the head, the first break."""

    valid: bool
    events_checked: int
    pages_checked: int
    memories_checked: int
    first_broken: BrokenRecord | None = None
    head: ChainHead | None = None
    checkpoints_checked: int = 0
    grants_checked: int = 0
    # True when checkpoint signatures were checked against a key the caller
    # trusts (``--public-key`` or the signing key), not the key each names.
    checkpoints_trusted: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["checked"] = self.events_checked
        data["head"] = None if self.head is None else self.head.to_dict()
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


@dataclass(frozen=True)
class _EventWalk:
    checked: int
    head: ChainHead | None
    checkpoints: int
    broken: tuple[BrokenRecord, ...]


def _walk_events(store: Store, trusted: Ed25519PublicKey | None) -> _EventWalk:
    """The whole log in order: links, hashes, checkpoint signatures; the head."""
    checked, checkpoints, prev, expected = 0, 0, GENESIS, 1
    head: ChainHead | None = None
    broken: list[BrokenRecord] = []
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
            broken.append(BrokenRecord("event", str(event.seq), reason))
            break
        if event.kind == CHECKPOINT_KIND:
            checkpoints += 1
            problem = checkpoint_problem(event, trusted)
            if problem and not broken:
                broken.append(BrokenRecord("event", str(event.seq), problem))
        head = ChainHead(event.seq, event.hash)
        prev, expected = event.hash, expected + 1
    return _EventWalk(checked, head, checkpoints, tuple(broken))


def _memory_reason(state: MemoryState, previous: str | None, bridge: dict[str, str | None],
                   marker: int | None) -> str | None:
    row = state.memory
    if row.redacted_at:
        if row.text != REDACTED_TEXT:
            return "redacted row does not hold the redaction placeholder"
    elif memory_hash(row.text, row.agent_id, row.created_at) != row.content_hash:
        return "text does not match its stored content_hash"
    if state.recorded_content != row.content_hash:
        return "content_hash does not match the hash recorded in the event log"
    if not _links(row.prev_hash, previous, bridge):
        return "prev_hash does not link to the previous memory of its chain"
    if state.recorded_state is None:
        if not unrecorded_ok(state.last_seq, marker):
            return "no access state recorded in the event log for this memory"
    elif state.recorded_state != memory_state_hash(row):
        return ("access state (scope, visibility, tenant, owner, lifecycle, tags, …) does not "
                "match the state recorded in the event log")
    if sorted(set(state.tag_rows)) != sorted(set(row.tags)):
        return "memory_tags rows do not match the memory's tags"
    return None


def _walk_memories(store: Store, agent_id: str | None, thread_id: str | None,
                   created_before: str | None, check_log: bool, marker: int | None,
                   bridge: dict[str, str | None]) -> tuple[int, int, list[BrokenRecord]]:
    """(memories checked, verified, breaks) of the chains in scope."""
    broken: list[BrokenRecord] = []
    checked = verified = 0
    chain_key: tuple[str, str | None] | None = None
    previous: str | None = None
    for state in store.iter_memory_states(agent_id, thread_id, created_before=created_before):
        row = state.memory
        checked += 1
        if (row.agent_id, row.thread_id) != chain_key:
            chain_key, previous = (row.agent_id, row.thread_id), None
        reason = _memory_reason(state, previous, bridge, marker)
        if reason:
            broken.append(BrokenRecord("memory", row.uuid, reason))
        else:
            verified += 1
        previous = row.content_hash
    if check_log:
        for uuid in store.iter_vanished_memories(agent_id, thread_id):
            checked += 1
            broken.append(BrokenRecord(
                "memory", uuid, "memory row is gone but no hard_delete was logged"))
    return checked, verified, broken


def _records(problems: list[Problem]) -> list[BrokenRecord]:
    return [BrokenRecord(p.kind, p.id, p.reason, slug=p.slug) for p in problems]


def walk(store: Store, *, agent_id: str | None = None, thread_id: str | None = None,
         created_before: str | None = None, check_log: bool = True,
         trusted_key: Ed25519PublicKey | None = None) -> Walk:
    """Run every check in scope (see the module docstring).

    Args:
        agent_id, thread_id: the memory slice (None: every agent / thread).
        created_before: only memories created at or before this timestamp
            (Replay's chain as of a checkpoint).
        check_log: also walk the event log, pages, ACLs and delegations, and
            look for logged inserts whose row vanished.
        trusted_key: checkpoint signatures must be this key's.
    """
    events = _walk_events(store, trusted_key) if check_log else _EventWalk(0, None, 0, ())
    marker = store.state_marker_seq()
    tombstones = store.mnemo_tombstones()
    bridge = {content_hash: prev for _, content_hash, prev in tombstones}
    pages, page_breaks = check_pages(store, marker) if check_log else (0, [])
    grants, grant_breaks = (check_grants(store, marker, {u for u, _, _ in tombstones})
                            if check_log else (0, []))
    memories, verified, memory_breaks = _walk_memories(
        store, agent_id, thread_id, created_before, check_log, marker, bridge)
    broken = [*events.broken, *_records(page_breaks), *memory_breaks, *_records(grant_breaks)]
    return Walk(events.checked, pages, memories, verified, tuple(broken), events.head,
                events.checkpoints, grants)


def verify_brain(store: Store, *, trusted_key: Ed25519PublicKey | None = None) -> VerifyReport:
    """The whole brain, as ``brainkeep verify`` reports it.

    A row edited behind the server's back no longer matches the hashes its
    newest event recorded (content or access state), its own stored hash, or
    its chain link, so the report names it.
    """
    result = walk(store, trusted_key=trusted_key)
    first = result.broken[0] if result.broken else None
    return VerifyReport(first is None, result.events_checked, result.pages_checked,
                        result.memories_checked, first, result.head, result.checkpoints,
                        result.grants_checked, trusted_key is not None)


def verify_memories(store: Store, agent_id: str | None, thread_id: str | None, *,
                    created_before: str | None = None, check_log: bool = True,
                    visible: Callable[[str], bool] | None = None) -> VerifyOutcome:
    """A memory slice (all agents when ``agent_id`` is None), as gRPC Verify reports it.

    Totals count memories; a broken event, page, ACL or delegation still
    makes the outcome invalid and is named first (events) or after pages.

    ``visible`` (asked with memory uuids: a reader's scope, core/mnemo/thread_scope.py)
    narrows what is *reported*, not what is checked: every row is still walked,
    because a hash link needs its hidden neighbour (skipping it would report a
    false break). Totals then count visible memories only, and a hidden
    memory's break is named ``HIDDEN_RECORD``, never by id.
    """
    result = walk(store, agent_id=agent_id, thread_id=thread_id,
                  created_before=created_before, check_log=check_log)
    total, verified = result.memories_checked, result.memories_verified
    if visible is not None:
        total, verified = _visible_totals(store, agent_id, thread_id, created_before,
                                          result.broken, visible)
    if result.broken:
        first = result.broken[0]
        label = first.label
        if visible is not None and first.kind == "memory" and not visible(first.id):
            label = HIDDEN_RECORD
        return VerifyOutcome(False, total, verified, label, first.reason)
    return VerifyOutcome(True, total, verified)


# What ``first_broken_at`` says for a memory outside the reader's scope.
HIDDEN_RECORD = "(a record outside this reader's scope)"


def _visible_totals(store: Store, agent_id: str | None, thread_id: str | None,
                    created_before: str | None, broken: tuple[BrokenRecord, ...],
                    visible: Callable[[str], bool]) -> tuple[int, int]:
    """(checked, verified) over the memories ``visible`` admits (vanished rows included)."""
    bad = {b.id for b in broken if b.kind == "memory"}
    rows = {r.uuid for r in store.mnemo_chain_rows(agent_id, thread_id,
                                                   created_before=created_before)}
    shown = {uuid for uuid in rows | bad if visible(uuid)}
    return len(shown), len(shown - bad)

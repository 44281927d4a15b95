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

Every scan streams rows (one cursor each), so a full walk is linear in the
brain. The full walk is what ``brainkeep verify`` and gRPC ``Verify`` run:
"valid" means every row-deciding column of every row was checked again.
An **incremental** walk (``since``: a head an earlier walk proved,
core/verify_since.py; ``verify --since-verified`` only) checks the events
after it and the rows they touched (a memory with its chain successor,
pages, ACLs, delegations), so it costs the new events, not the brain, and
its report says what it did not check (``VerifyReport.skipped``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from brainkeep.core.access_checks import Problem, check_grants, check_pages
from brainkeep.core.anchor import ChainHead, check_anchor
from brainkeep.core.integrity_rows import VerifiedCheckpoint
from brainkeep.core.memory.models import VerifyOutcome
from brainkeep.core.memory_checks import BrokenRecord, touched_memories, walk_memories
from brainkeep.core.ports.composites import ChainStore
from brainkeep.core.verify_halves import SideWalk, one_after_the_other
from brainkeep.core.verify_log import walk_events_since
from brainkeep.core.verify_since import Touched, proved, start_point


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
    # Breaks of touched memories outside the requested slice: not reported
    # (not the caller's), but the head is not recorded as proved either.
    unreported: int = 0


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
    mode: str = "full"  # full | incremental
    from_seq: int = 0  # the walk checked the events after this seq
    seconds: float = 0.0
    anchor_problem: str | None = None  # why ``--expect-head`` failed (None: it held)
    recorded: VerifiedCheckpoint | None = None  # the head recorded as proved
    # What this walk did NOT check (empty for the full walk): an incremental
    # walk must say so, or "valid" would claim more than it proved.
    skipped: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("recorded")
        data.pop("skipped")
        data["checked"] = self.events_checked
        data["head"] = None if self.head is None else self.head.to_dict()
        data["not_checked"] = list(self.skipped)
        return data


def skipped_since(from_seq: int) -> tuple[str, ...]:
    """What an incremental walk from the proved head ``from_seq`` leaves unchecked."""
    return (
        f"events up to seq {from_seq} were not re-walked (an earlier walk proved them)",
        f"rows not named by events after seq {from_seq} were not re-checked "
        "(a direct database edit of such a row is found by the full walk only)",
    )


def _records(problems: list[Problem]) -> list[BrokenRecord]:
    return [BrokenRecord(p.kind, p.id, p.reason, slug=p.slug) for p in problems]


def walk(store: ChainStore, *, agent_id: str | None = None, thread_id: str | None = None,
         created_before: str | None = None, check_log: bool = True,
         trusted_key: Ed25519PublicKey | None = None, since: ChainHead | None = None,
         side: SideWalk | None = None) -> Walk:
    """Run every check in scope (see the module docstring).

    Args:
        agent_id, thread_id: the memory slice (None: every agent / thread).
        created_before: only memories created at or before this timestamp
            (Replay's chain as of a checkpoint).
        check_log: also walk the event log, pages, ACLs and delegations, and
            look for logged inserts whose row vanished.
        trusted_key: checkpoint signatures must be this key's.
        since: a proved head: walk only the events after it and the rows they
            touch (memories of the slice are then those touched rows only).
        side: where the log-and-pages half runs while this thread walks the
            memories and grants (core/verify_halves.py; None: one after the other).
    """
    if since is not None and check_log:
        return _walk_since(store, since, agent_id, thread_id, trusted_key)
    marker = store.state_marker_seq()
    tombstones = store.hard_deleted_memories()
    bridge = {content_hash: prev for _, content_hash, prev in tombstones}
    if not check_log:
        memories, verified, memory_breaks = walk_memories(
            store, agent_id, thread_id, created_before, False, marker, bridge)
        return Walk(0, 0, memories, verified, tuple(memory_breaks))

    def memories_and_grants() -> tuple[tuple[int, list[Problem]],
                                       tuple[int, int, list[BrokenRecord]]]:
        return (check_grants(store, marker, {u for u, _, _ in tombstones}),
                walk_memories(store, agent_id, thread_id, created_before, True, marker, bridge))

    # The log and the pages beside the memories and grants (core/verify_halves.py).
    run = one_after_the_other if side is None else side.run
    (events, (pages, page_breaks)), mine = run(store, trusted_key, marker, memories_and_grants)
    (grants, grant_breaks), (memories, verified, memory_breaks) = mine
    broken = [*events.broken, *_records(page_breaks), *memory_breaks, *_records(grant_breaks)]
    return Walk(events.checked, pages, memories, verified, tuple(broken), events.head,
                events.checkpoints, grants)


def _walk_since(store: ChainStore, since: ChainHead, agent_id: str | None, thread_id: str | None,
                trusted_key: Ed25519PublicKey | None) -> Walk:
    """The incremental walk: events after ``since``, then the rows they touched."""
    touched = Touched()
    events = walk_events_since(store, trusted_key, since, touched)
    marker = store.state_marker_seq()
    tombstones = store.hard_deleted_memories()
    bridge = {content_hash: prev for _, content_hash, prev in tombstones}
    hard_deleted = {u for u, _, _ in tombstones}
    pages, page_breaks = check_pages(store, marker, touched.pages)
    grants, grant_breaks = check_grants(store, marker, hard_deleted, touched.grants)
    memories, verified, memory_breaks, outside = touched_memories(
        store, touched, agent_id, thread_id, marker, bridge, hard_deleted)
    broken = [*events.broken, *_records(page_breaks), *memory_breaks, *_records(grant_breaks)]
    return Walk(events.checked, pages, memories, verified, tuple(broken), events.head,
                events.checkpoints, grants, outside)


def _start(store: ChainStore, trusted: Ed25519PublicKey | None,
           anchor: ChainHead | None) -> ChainHead | None:
    checkpoint = start_point(store, trusted=trusted, anchor=anchor)
    return None if checkpoint is None else ChainHead(checkpoint.seq, checkpoint.hash)


Transact = Callable[[Callable[[], object]], object]


def _in_transaction(store: ChainStore) -> Transact:
    def run(work: Callable[[], object]) -> object:
        with store.transaction():
            return work()
    return run


def _settle(store: ChainStore, transact: Transact, broken: bool, head: VerifiedCheckpoint | None
            ) -> None:
    """Record a proved head, or forget every one once a walk found a break.

    A break stays found: no later ``verify --since-verified`` may start from
    a head proved before it, so every one walks in full until the brain
    verifies clean again.
    """
    if broken:
        transact(store.forget_verified_checkpoints)
    elif head is not None:
        transact(lambda: store.record_verified_checkpoint(head))


def verify_brain(store: ChainStore, *, trusted_key: Ed25519PublicKey | None = None,
                 since_verified: bool = False, anchor: ChainHead | None = None,
                 signer: Ed25519PrivateKey | None = None, now: str | None = None,
                 side: SideWalk | None = None) -> VerifyReport:
    """The whole brain, as ``brainkeep verify`` reports it.

    A row edited behind the server's back no longer matches the hashes its
    newest event recorded (content or access state), its own stored hash, or
    its chain link, so the report names it. The full walk unless
    ``since_verified`` (``verify --since-verified``): then from the newest
    qualifying proved head (core/verify_since.py), if there is one, and the
    report's ``skipped`` says what that walk did not check. With ``now``, a
    walk that found nothing (and whose ``anchor`` held) records its head as
    proved, signed by ``signer`` when given.
    """
    began = time.perf_counter()
    since = _start(store, trusted_key, anchor) if since_verified else None
    result = walk(store, trusted_key=trusted_key, since=since, side=side)
    problem = None if anchor is None else check_anchor(store, anchor)
    first = result.broken[0] if result.broken else None
    recorded = None
    if first is None and problem is None and now is not None and result.head is not None:
        recorded = proved(result.head, now=now, from_seq=0 if since is None else since.seq,
                          full=since is None, signer=signer)
    if first is not None or recorded is not None:
        _settle(store, _in_transaction(store), first is not None, recorded)
    return VerifyReport(first is None, result.events_checked, result.pages_checked,
                        result.memories_checked, first, result.head, result.checkpoints,
                        result.grants_checked, trusted_key is not None,
                        mode="full" if since is None else "incremental",
                        from_seq=0 if since is None else since.seq,
                        seconds=round(time.perf_counter() - began, 4),
                        anchor_problem=problem, recorded=recorded,
                        skipped=() if since is None else skipped_since(since.seq))


def verify_memories(store: ChainStore, agent_id: str | None, thread_id: str | None, *,
                    created_before: str | None = None, check_log: bool = True,
                    visible: Callable[[str], bool] | None = None,
                    now: str | None = None, transact: Transact | None = None,
                    side: SideWalk | None = None) -> VerifyOutcome:
    """A memory slice (all agents when ``agent_id`` is None), as gRPC Verify reports it.

    Always the full walk (``VerifyRequest`` has no field asking for less):
    totals count memories; a broken event, page, ACL or delegation still
    makes the outcome invalid and is named first (events) or after pages.

    ``visible`` (asked with memory uuids: a reader's scope, core/memory/thread_scope.py)
    narrows what is *reported*, not what is checked: every row is still walked,
    because a hash link needs its hidden neighbour (skipping it would report a
    false break). Totals then count visible memories only, and a hidden
    memory's break is named ``HIDDEN_RECORD``, never by id.

    With ``now`` (through ``transact``: the caller's write path), a walk that
    found a break forgets every proved head, and a clean walk of the whole
    brain (no slice) records its head for ``verify --since-verified``. A
    slice's walk proves no head: the memories outside it were not checked.
    """
    result = walk(store, agent_id=agent_id, thread_id=thread_id,
                  created_before=created_before, check_log=check_log, side=side)
    if check_log and now is not None:
        whole = agent_id is None and thread_id is None and created_before is None
        head = None if result.head is None or not whole else proved(
            result.head, now=now, from_seq=0, full=True, signer=None)
        _settle(store, transact or _in_transaction(store), bool(result.broken), head)
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


def _visible_totals(store: ChainStore, agent_id: str | None, thread_id: str | None,
                    created_before: str | None, broken: tuple[BrokenRecord, ...],
                    visible: Callable[[str], bool]) -> tuple[int, int]:
    """(checked, verified) over the memories ``visible`` admits (vanished rows included)."""
    bad = {b.id for b in broken if b.kind == "memory"}
    rows = {r.uuid for r in store.memory_chain_rows(agent_id, thread_id,
                                                   created_before=created_before)}
    shown = {uuid for uuid in rows | bad if visible(uuid)}
    return len(shown), len(shown - bad)

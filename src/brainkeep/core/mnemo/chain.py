"""Verify: recompute memory hash chains per (agent, thread), oldest first.

For every stored memory in scope, in chain order:

1. its text still hashes to ``content_hash`` (redacted rows are exempt: their
   text was replaced on purpose, and a ``memory.redact`` event says so);
2. ``content_hash`` equals the hash its newest event recorded;
3. ``prev_hash`` links to the previous memory of the same (agent, thread).
   A gap is accepted only when it is bridged by logged hard deletes, whose
   events record the removed row's ``content_hash`` and ``prev_hash``.

With ``check_log`` it also recomputes the event log's own hash chain (the
recorded hashes and tombstones above are only as good as the log) and flags
memories whose insert was logged but whose row vanished without a logged
hard delete. Soft deletes, decays and scope changes never touch hashed
fields, so they keep chains valid; threads are separate chains. The Mnemo
reference broke on both.
"""

from __future__ import annotations

from brainkeep.core.audit import GENESIS, event_body, event_hash, memory_hash
from brainkeep.core.mnemo.context import MnemoContext
from brainkeep.core.mnemo.models import VerifyOutcome


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


def _event_log_error(ctx: MnemoContext) -> tuple[str, str] | None:
    """(seq, reason) of the first event whose hash chain is broken, if any."""
    prev, expected = GENESIS, 1
    for event in ctx.store.iter_events():
        body = event_body(seq=event.seq, ts=event.ts, source_id=event.source_id,
                          kind=event.kind, subject_type=event.subject_type,
                          subject_id=event.subject_id, actor=event.actor, payload=event.payload)
        if event.seq != expected:
            return str(event.seq), f"event sequence gap before seq {event.seq}"
        if event.prev_hash != prev or event_hash(prev, body) != event.hash:
            return str(event.seq), f"event {event.seq} does not match the hash chain"
        prev, expected = event.hash, expected + 1
    return None


def verify(ctx: MnemoContext, agent_id: str | None, thread_id: str | None, *,
           created_before: str | None = None, check_log: bool = True) -> VerifyOutcome:
    """Recompute the chains of ``agent_id`` (all agents when None), optionally one thread."""
    store = ctx.store
    rows = store.mnemo_chain_rows(agent_id, thread_id, created_before=created_before)
    recorded = store.recorded_hashes("memory")
    tombstones = store.mnemo_tombstones()
    bridge = {content_hash: prev for _, content_hash, prev in tombstones}
    failures: list[tuple[str, str]] = []
    verified = 0
    chain_key: tuple[str, str | None] | None = None
    previous: str | None = None
    for row in rows:
        if (row.agent_id, row.thread_id) != chain_key:
            chain_key, previous = (row.agent_id, row.thread_id), None
        if not row.redacted_at and (
            memory_hash(row.text, row.agent_id, row.created_at) != row.content_hash
        ):
            failures.append((row.uuid, "content does not match its content_hash"))
        elif recorded.get(row.uuid) != row.content_hash:
            failures.append((row.uuid, "content_hash differs from the hash in the event log"))
        elif not _links(row.prev_hash, previous, bridge):
            failures.append((row.uuid, "prev_hash does not link to the previous memory"))
        else:
            verified += 1
        previous = row.content_hash
    total = len(rows)
    if check_log:
        present = {row.uuid for row in rows}
        deleted = {uuid for uuid, _, _ in tombstones}
        for uuid, _ in store.mnemo_inserted(agent_id, thread_id):
            if uuid not in present and uuid not in deleted:
                total += 1
                failures.append((uuid, "memory row is gone but no hard_delete was logged"))
        broken_log = _event_log_error(ctx)
        if broken_log is not None:
            failures.insert(0, (f"event:{broken_log[0]}", broken_log[1]))
    if failures:
        first, reason = failures[0]
        return VerifyOutcome(False, total, verified, first, reason)
    return VerifyOutcome(True, total, verified)

"""Forget: six strategies, per-id outcomes, one logged event per memory.

Every forget event records its ``strategy`` (the Mnemo reference did not, so
TrajectoryAudit's capacity signal always fired) and the row's
``content_hash``. A hard delete also records the row's ``prev_hash``: the
chain verifier uses it to bridge the gap the missing row leaves, while a row
removed behind the server's back (no such event) still breaks the chain.
"""

from __future__ import annotations

from dataclasses import replace

from brainkeep.core import erasure, events, receipts
from brainkeep.core.memory import access
from brainkeep.core.memory import validation as v
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.models import FORGET_STRATEGIES, ForgetOutcome
from brainkeep.core.models import Event, Memory
from brainkeep.errors import InvalidInput, NotFound, PermissionDenied

DECAY_FACTOR = 0.5
NOT_FOUND = "not found"
DENIED = "permission denied"
INVALID_ID = "invalid id"


def apply(ctx: MnemoContext, memory: Memory, strategy: str, *, actor: str, now: str) -> bool:
    """Forget one memory with ``strategy`` (inside a transaction); False = nothing to do.

    Tombstoned rows only accept the purging strategies (hard_delete,
    redact); redacting twice is a no-op.
    """
    gone = memory.deleted_at is not None or memory.expired_at is not None
    if strategy == "redact":
        return erasure.redact_row(ctx.store, memory, actor=actor, now=now)
    if strategy == "hard_delete":
        ctx.store.hard_delete_memory(memory.id)
        ctx.store.append_event(
            events.memory_delete(memory, actor=actor, strategy=strategy, after=None), now)
    elif gone:
        return False
    elif strategy == "decay":
        after = round(memory.importance * DECAY_FACTOR, 6)
        ctx.store.set_memory_importance(memory.id, after, now)
        ctx.store.append_event(events.memory_decay(memory, actor=actor, importance_after=after),
                               now)
    else:  # soft_delete | archive | consolidate
        ctx.store.mark_memory_deleted(memory.id, now, strategy)
        ctx.store.append_event(events.memory_delete(
            memory, actor=actor, strategy=strategy,
            after=ctx.store.get_memory(memory.id) or memory), now)
    return True


def forget(ctx: MnemoContext, memory_ids: list[str], strategy: str | None,
           agent_id: str | None) -> ForgetOutcome:
    """Forget each id the agent may delete; failures are reported per id.

    Raises:
        InvalidInput: no ids, too many ids, unknown strategy or bad agent id.
    """
    if not memory_ids:
        raise InvalidInput("`memory_ids` is empty.", suggestion="Pass at least one memory id.",
                           field="memory_ids")
    if len(memory_ids) > v.MAX_IDS_PER_CALL:
        raise InvalidInput(f"At most {v.MAX_IDS_PER_CALL} ids per call.", field="memory_ids")
    chosen = v.choice(strategy, FORGET_STRATEGIES, "strategy", "soft_delete")
    agent = v.agent_id(agent_id)
    purging = chosen in erasure.PURGING

    def work() -> tuple[ForgetOutcome, Event | None, erasure.Erasure | None]:
        forgotten: list[Memory] = []
        errors: list[tuple[str, str]] = []
        now = ctx.clock.now_ts()
        targets: list[tuple[str, Memory]] = []
        for raw in dict.fromkeys(memory_ids):
            try:
                uuid = v.memory_uuid(raw)
            except InvalidInput:
                errors.append((raw, INVALID_ID))
                continue
            try:
                memory = access.load(ctx, uuid, agent, now, include_deleted=purging)
                access.require(ctx, memory, agent, "delete", now)
            except NotFound:
                errors.append((raw, NOT_FOUND))
                continue
            except PermissionDenied:
                errors.append((raw, DENIED))
                continue
            targets.append((raw, memory))
        purge = erasure.begin(ctx.store, ctx.source_id, [m for _, m in targets]) \
            if purging else None
        for raw, memory in targets:
            if apply(ctx, memory, chosen, actor=agent, now=now):
                forgotten.append(memory)
            else:
                errors.append((raw, NOT_FOUND))
        uuids = tuple(m.uuid for m in forgotten)
        if purge is None or not forgotten:
            return ForgetOutcome(uuids, tuple(errors), len(forgotten)), None, None
        purge.cascade(forgotten, lambda t: apply(ctx, t, "redact", actor=agent, now=now))
        done = purge.finish(forgotten)
        event = ctx.store.append_event(
            receipts.erase_event(done, actor=agent, strategy=chosen, source_id=ctx.source_id),
            now)
        events = len(forgotten) + len(purge.topics) + 1
        return ForgetOutcome(uuids, tuple(errors), events), event, done

    outcome, event, done = ctx.transact(work)
    if event is None or done is None:
        return outcome
    receipt = receipts.settle(ctx.store, ctx.receipts, operation="Forget", strategy=chosen,
                              event=event, erasure=done, now=ctx.clock.now_ts())
    return replace(outcome, receipt=receipt)

"""Forget: six strategies, per-id outcomes, one logged event per memory.

Every forget event records its ``strategy`` (the Mnemo reference did not, so
TrajectoryAudit's capacity signal always fired) and the row's
``content_hash``. A hard delete also records the row's ``prev_hash``: the
chain verifier uses it to bridge the gap the missing row leaves, while a row
removed behind the server's back (no such event) still breaks the chain.
"""

from __future__ import annotations

from brainkeep.core import events
from brainkeep.core.mnemo import access
from brainkeep.core.mnemo import validation as v
from brainkeep.core.mnemo.context import MnemoContext
from brainkeep.core.mnemo.models import FORGET_STRATEGIES, REDACTED_TEXT, ForgetOutcome
from brainkeep.core.models import Memory
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
        if memory.redacted_at:
            return False
        ctx.store.mnemo_redact(memory.id, now, REDACTED_TEXT)
        ctx.store.append_event(events.memory_redact(
            memory, actor=actor, after=ctx.store.get_memory(memory.id) or memory), now)
    elif strategy == "hard_delete":
        ctx.store.mnemo_hard_delete(memory.id)
        ctx.store.append_event(
            events.memory_delete(memory, actor=actor, strategy=strategy, after=None), now)
    elif gone:
        return False
    elif strategy == "decay":
        after = round(memory.importance * DECAY_FACTOR, 6)
        ctx.store.mnemo_set_importance(memory.id, after, now)
        ctx.store.append_event(events.memory_decay(memory, actor=actor, importance_after=after),
                               now)
    else:  # soft_delete | archive | consolidate
        ctx.store.mnemo_mark_deleted(memory.id, now, strategy)
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

    def work() -> ForgetOutcome:
        forgotten: list[str] = []
        errors: list[tuple[str, str]] = []
        now = ctx.clock.now_ts()
        for raw in dict.fromkeys(memory_ids):
            try:
                uuid = v.memory_uuid(raw)
            except InvalidInput:
                errors.append((raw, INVALID_ID))
                continue
            purge = chosen in ("hard_delete", "redact")
            try:
                memory = access.load(ctx, uuid, agent, now, include_deleted=purge)
                access.require(ctx, memory, agent, "delete", now)
            except NotFound:
                errors.append((raw, NOT_FOUND))
                continue
            except PermissionDenied:
                errors.append((raw, DENIED))
                continue
            if apply(ctx, memory, chosen, actor=agent, now=now):
                forgotten.append(uuid)
            else:
                errors.append((raw, NOT_FOUND))
        return ForgetOutcome(tuple(forgotten), tuple(errors), len(forgotten))

    return ctx.transact(work)

"""ForgetSubject: erase every memory tagged ``subject:<id>`` (GDPR / DPDPA).

Without ``agent_id`` the erasure covers every agent's memories (a data
subject's right does not depend on which agent wrote about them; the server
token guards the call). With ``agent_id`` it covers the memories that agent
may delete; others tagged for the subject are reported as "permission denied".

Events never held memory text, so the log needs no rewriting: each forgotten
memory gets its own event (with its ``strategy``), plus one ``subject.erase``
summary keyed by a SHA-256 of the subject id rather than the id itself.
``cascaded_events`` counts those new events.
"""

from __future__ import annotations

import hashlib

from brainkeep.core.mnemo import access
from brainkeep.core.mnemo import validation as v
from brainkeep.core.mnemo.context import MnemoContext
from brainkeep.core.mnemo.forget import DENIED, apply
from brainkeep.core.mnemo.models import SUBJECT_STRATEGIES, SubjectOutcome
from brainkeep.core.models import Memory


def _tombstoned_by(memory: Memory, strategy: str) -> bool:
    """Already in the state ``strategy`` would leave it in (idempotent reruns)."""
    if strategy == "redact":
        return memory.redacted_at is not None
    return strategy == "soft_delete" and (memory.deleted_at is not None
                                          or memory.expired_at is not None)


def forget_subject(ctx: MnemoContext, subject_id: str, strategy: str | None,
                   agent_id: str | None) -> SubjectOutcome:
    """Forget the subject's memories with ``strategy`` (default ``redact``).

    Raises:
        InvalidInput: blank/oversized subject id, unknown strategy, bad agent id.
    """
    subject = v.label(subject_id, "subject_id", required=True)
    assert subject is not None
    chosen = v.choice(strategy, SUBJECT_STRATEGIES, "strategy", "redact")
    agent = None if agent_id is None else v.agent_id(agent_id)

    def work() -> SubjectOutcome:
        forgotten: list[str] = []
        errors: list[tuple[str, str]] = []
        now = ctx.clock.now_ts()
        matched = ctx.store.mnemo_memories_with_tag(ctx.source_id, f"subject:{subject}")
        actor = agent or "subject-erasure"
        for memory in matched:
            if agent is not None and access.holding(
                access.grants(ctx, memory, agent, now), "delete"
            ) is None:
                errors.append((memory.uuid, DENIED))
                continue
            if _tombstoned_by(memory, chosen):
                continue
            if apply(ctx, memory, chosen, actor=actor, now=now):
                forgotten.append(memory.uuid)
        events = len(forgotten)
        if matched:
            ctx.log("subject.erase", "subject", hashlib.sha256(subject.encode()).hexdigest(),
                    {"agent_id": actor, "strategy": chosen, "matched": len(matched),
                     "forgotten": len(forgotten)},
                    actor=actor, now=now)
            events += 1
        return SubjectOutcome(subject, chosen, len(matched), tuple(forgotten), events,
                              tuple(errors))

    return ctx.transact(work)

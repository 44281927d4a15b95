"""ForgetSubject: erase every memory tagged ``subject:<id>`` (GDPR / DPDPA).

Without ``agent_id`` the erasure covers every agent's memories (a data
subject's right does not depend on which agent wrote about them; the server
token guards the call). With ``agent_id`` it covers the memories that agent
may delete; others tagged for the subject are reported as "permission denied".

Events never held memory text, so the log needs no rewriting: each forgotten
memory gets its own event (with its ``strategy``), plus one ``subject.erase``
summary keyed by a SHA-256 of the subject id rather than the id itself.
``cascaded_events`` counts those new events. With a purging strategy
(``redact``, ``hard_delete``) topic documents that copied a forgotten
memory are redacted too, the summary records the ids and the counts purged
per store (core/erasure.py), and the outcome carries the forget receipt.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from brainkeep.core import erasure, receipts
from brainkeep.core.memory import access
from brainkeep.core.memory import validation as v
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.forget import DENIED, apply
from brainkeep.core.memory.models import SUBJECT_STRATEGIES, SubjectOutcome
from brainkeep.core.models import Event, Memory


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
    purging = chosen in erasure.PURGING

    def work() -> tuple[SubjectOutcome, Event | None, erasure.Erasure | None]:
        forgotten: list[Memory] = []
        errors: list[tuple[str, str]] = []
        now = ctx.clock.now_ts()
        matched = ctx.store.memories_with_tag(ctx.source_id, f"subject:{subject}")
        actor = agent or "subject-erasure"
        targets: list[Memory] = []
        for memory in matched:
            if agent is not None and access.holding(
                access.grants(ctx, memory, agent, now), "delete"
            ) is None:
                errors.append((memory.uuid, DENIED))
                continue
            if not _tombstoned_by(memory, chosen):
                targets.append(memory)
        purge = erasure.begin(ctx.store, ctx.source_id, targets) if purging else None
        forgotten = [m for m in targets if apply(ctx, m, chosen, actor=actor, now=now)]
        events = len(forgotten)
        summary: Event | None = None
        done: erasure.Erasure | None = None
        if matched:
            payload: dict[str, Any] = {"agent_id": actor, "strategy": chosen,
                                       "matched": len(matched), "forgotten": len(forgotten)}
            if purge is not None and forgotten:
                purge.cascade(forgotten, lambda t: apply(ctx, t, "redact", actor=actor, now=now))
                done = purge.finish(forgotten)
                events += len(purge.topics)
                payload.update(receipts.erase_payload(done, actor=actor, strategy=chosen))
            summary = ctx.log(receipts.SUBJECT_ERASE_KIND, "subject",
                              hashlib.sha256(subject.encode()).hexdigest(), payload,
                              actor=actor, now=now)
            events += 1
        outcome = SubjectOutcome(subject, chosen, len(matched),
                                 tuple(m.uuid for m in forgotten), events, tuple(errors))
        return outcome, summary, done

    outcome, summary, done = ctx.transact(work)
    if summary is None or done is None:
        return outcome
    receipt = receipts.settle(ctx.store, ctx.receipts, operation="ForgetSubject",
                              strategy=chosen, event=summary, erasure=done,
                              now=ctx.clock.now_ts())
    return replace(outcome, receipt=receipt)

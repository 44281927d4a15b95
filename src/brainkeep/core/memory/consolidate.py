"""Consolidate: fold member memories into one revisable topic document.

The topic document is itself a memory (``semantic``, ``private`` to the
consolidating agent, tagged ``topic:<name>``, ``consolidation_state='topic'``)
so Recall, Verify and the audit chain cover it like any other. Every member
must be readable by the agent, or nothing is written. Members are left as
they are. ``supersede`` names the previous version: it is expired (reason
``superseded``, ``superseded_by`` the new row) but kept, so history stays.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core.memory import access, writes
from brainkeep.core.memory import validation as v
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.models import TopicOutcome
from brainkeep.core.memory.remember import MAX_CONTENT_CHARS, RememberInput, build_draft, insert
from brainkeep.errors import InvalidInput, PermissionDenied

MEMBER_LINE_CHARS = 500


@dataclass(frozen=True)
class ConsolidateInput:
    """A ConsolidateRequest as plain values."""

    memory_ids: tuple[str, ...]
    topic_name: str
    agent_id: str | None = None
    summary: str | None = None
    supersede: str | None = None
    thread_id: str | None = None
    metadata: str | None = None


def _body(topic: str, summary: str | None, texts: list[str]) -> str:
    if summary and summary.strip():
        return summary
    # Without a summary (no LLM on this path) the document is extractive.
    lines = [f"Topic: {topic}"] + [f"- {' '.join(t.split())[:MEMBER_LINE_CHARS]}" for t in texts]
    return "\n".join(lines)[:MAX_CONTENT_CHARS]


def consolidate(ctx: MnemoContext, req: ConsolidateInput) -> TopicOutcome:
    """Write a topic document (a new version when ``supersede`` is given).

    Raises:
        InvalidInput: no members, bad ids, blank topic, members of several orgs,
            a ``supersede`` target that is not a live topic document.
        NotFound: a member (or the superseded document) is not readable.
        PermissionDenied: the superseded document belongs to another agent.
    """
    agent = v.agent_id(req.agent_id)
    topic = v.label(req.topic_name, "topic_name", required=True)
    assert topic is not None
    members = v.id_list(req.memory_ids, "memory_ids")
    if not members:
        raise InvalidInput("`memory_ids` is empty.", suggestion="Name the memories to fold.",
                           field="memory_ids")
    old_uuid = v.memory_uuid(req.supersede, "supersede") if req.supersede else None

    def work() -> TopicOutcome:
        now = ctx.clock.now_ts()
        loaded = [access.load(ctx, uuid, agent, now) for uuid in members]
        orgs = {m.org_id for m in loaded}
        if len(orgs) > 1:
            raise InvalidInput("Members belong to different orgs; consolidate per org.",
                               field="memory_ids")
        version, old = 1, None
        if old_uuid:
            old = access.load(ctx, old_uuid, agent, now)
            if old.consolidation_state != "topic":
                raise InvalidInput(f"{old_uuid} is not a topic document.", field="supersede")
            if old.agent_id != agent:
                raise PermissionDenied(f"Topic document {old_uuid} belongs to another agent.")
            version = old.version + 1
        draft = build_draft(ctx, RememberInput(
            content=_body(topic, req.summary, [m.text for m in loaded]),
            memory_type="semantic", scope="private", tags=(f"topic:{topic}"[:128],),
            metadata=req.metadata, thread_id=req.thread_id, agent_id=agent,
            org_id=orgs.pop(), source_type="consolidation", related_to=members,
        ))
        doc, _ = insert(ctx, draft, now, topic_version=version)
        ctx.store.mark_topic_document(doc.id, version)
        ctx.store.add_topic_members(doc.id, list(members))
        revision = None
        # A held document replaces nothing (core/memory/writes.py held it).
        if old is not None and not doc.quarantined:
            revision = writes.expire(ctx.store, old, now, "superseded", actor=agent,
                                     superseded_by=doc.id)[1].seq
        event = ctx.log("topic.consolidate", "topic", doc.uuid,
                        {"agent_id": agent, "thread_id": doc.thread_id, "version": version,
                         "member_ids": list(members), "supersedes": old_uuid},
                        actor=agent, now=now)
        stored = ctx.store.get_memory(doc.id)
        assert stored is not None
        return TopicOutcome(stored, topic, members, version, event.seq,
                            superseded_id=old_uuid, revision_event=revision)

    return ctx.transact(work)

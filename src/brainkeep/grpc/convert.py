"""Proto messages <-> core.memory values. No rules here: only field mapping.

proto3 ``optional`` fields are read with ``HasField`` so "not sent" (None,
the service picks the default) stays distinct from "sent empty" (validated,
usually rejected).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from brainkeep.core.memory.consolidate import ConsolidateInput
from brainkeep.core.memory.delegation import DelegateInput
from brainkeep.core.memory.models import (
    ForgetOutcome,
    RecallResult,
    ReplayOutcome,
    Scored,
    ShareOutcome,
    SubjectOutcome,
    TopicOutcome,
    VerifyOutcome,
)
from brainkeep.core.memory.orientation_map import (
    OrientationEntry,
    OrientationMap,
    OrientationRequest,
)
from brainkeep.core.memory.recall import RecallInput
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.memory.sharing import ShareInput
from brainkeep.core.memory.trajectory import AuditReport, Finding
from brainkeep.grpc.generated import mnemo_pb2 as pb


def string_fields(message: Message, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Every string a request carries, as (field path, value), nested messages included.

    The servicer checks them all against the one text rule
    (``core.validate.texts``: no NUL, no lone surrogate) before any RPC runs.
    """
    for field, value in message.ListFields():
        name = prefix + field.name
        values = value if field.is_repeated else [value]
        if field.type == FieldDescriptor.TYPE_STRING:
            yield from ((name, item) for item in values)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            for item in values:
                yield from string_fields(item, name + ".")


def opt(message: Message, name: str) -> Any:
    """The value of an optional field, or None when it was not sent."""
    return getattr(message, name) if message.HasField(name) else None


def remember_input(req: pb.RememberRequest) -> RememberInput:
    return RememberInput(
        content=req.content,
        memory_type=opt(req, "memory_type"),
        scope=opt(req, "scope"),
        importance=opt(req, "importance"),
        tags=tuple(req.tags),
        metadata=opt(req, "metadata"),
        thread_id=opt(req, "thread_id"),
        ttl_seconds=opt(req, "ttl_seconds"),
        agent_id=opt(req, "agent_id"),
        source_type=opt(req, "source_type"),
        source_ref=opt(req, "source_id"),
        org_id=opt(req, "org_id"),
        decay_rate=opt(req, "decay_rate"),
        created_by=opt(req, "created_by"),
        related_to=tuple(req.related_to),
    )


def recall_input(req: pb.RecallRequest) -> RecallInput:
    return RecallInput(
        query=req.query,
        limit=opt(req, "limit"),
        strategy=opt(req, "strategy"),
        min_importance=opt(req, "min_importance"),
        tags=tuple(req.tags),
        agent_id=opt(req, "agent_id"),
        memory_type=opt(req, "memory_type"),
        scope=opt(req, "scope"),
        org_id=opt(req, "org_id"),
        hybrid_weights=tuple(req.hybrid_weights),
        rrf_k=opt(req, "rrf_k"),
        as_of=opt(req, "as_of"),
        explain=bool(opt(req, "explain")),
        orientation_cache=_orientation_request(req),
    )


def _orientation_request(req: pb.RecallRequest) -> OrientationRequest | None:
    if not req.HasField("orientation_cache"):
        return None
    o = req.orientation_cache
    return OrientationRequest(
        namespace=opt(o, "namespace"), token_budget=opt(o, "token_budget"),
        include_in_response=opt(o, "include_in_response"), distill=opt(o, "distill"),
    )


def _entries(entries: tuple[OrientationEntry, ...]) -> list[pb.OrientationEntry]:
    return [pb.OrientationEntry(key=e.key, value=e.value, freq=e.freq,
                                token_estimate=e.token_estimate) for e in entries]


def _orientation_response(m: OrientationMap) -> pb.OrientationCacheResponse:
    return pb.OrientationCacheResponse(
        namespace=m.namespace, entities=_entries(m.entities), constants=_entries(m.constants),
        schemas=_entries(m.schemas), token_estimate=m.token_estimate, budget=m.budget,
        hit_count=m.hit_count,
    )


def _scored(hit: Scored, explain: bool) -> pb.ScoredMemory:
    m = hit.memory
    out = pb.ScoredMemory(
        id=m.uuid, content=m.text, memory_type=m.memory_type, importance=m.importance,
        score=hit.score, created_at=m.created_at, agent_id=m.agent_id, scope=m.scope,
        tags=list(m.tags), metadata=json.dumps(m.metadata, ensure_ascii=False),
        access_count=hit.access_count, updated_at=m.updated_at,
    )
    if explain:
        out.score_breakdown.CopyFrom(pb.ScoreBreakdown(
            vector=hit.vector, bm25=hit.bm25, graph=hit.graph, recency=hit.recency,
            rrf_rank=hit.rank,
        ))
    return out


def recall_response(result: RecallResult, explain: bool) -> pb.RecallResponse:
    out = pb.RecallResponse(memories=[_scored(h, explain) for h in result.memories],
                            total=len(result.memories))
    r = result.reconstruction
    if r is not None:
        out.reconstruction.CopyFrom(pb.Reconstruction(
            cue=r.cue, summary=r.summary, source_ids=list(r.source_ids),
            linked_context_ids=list(r.linked_context_ids), confidence=r.confidence,
        ))
    if result.orientation is not None:
        out.orientation_cache.CopyFrom(_orientation_response(result.orientation))
    return out


def forget_response(outcome: ForgetOutcome) -> pb.ForgetResponse:
    return pb.ForgetResponse(
        forgotten=list(outcome.forgotten),
        errors=[pb.ForgetError(id=i, error=e) for i, e in outcome.errors],
    )


def share_input(req: pb.ShareRequest) -> ShareInput:
    return ShareInput(
        memory_ids=(req.memory_id, *req.memory_ids),
        targets=(req.target_agent_id, *req.target_agent_ids),
        permission=opt(req, "permission"),
        expires_in_hours=opt(req, "expires_in_hours"),
        agent_id=opt(req, "agent_id"),
    )


def share_response(outcome: ShareOutcome) -> pb.ShareResponse:
    return pb.ShareResponse(
        acl_id=outcome.acl_ids[0], acl_ids=list(outcome.acl_ids),
        memory_id=outcome.memory_ids[0], shared_with=outcome.targets[0],
        shared_with_all=list(outcome.targets), permission=outcome.permission,
    )


def delegate_input(req: pb.DelegateRequest) -> DelegateInput:
    return DelegateInput(
        delegator_id=req.delegator_id, delegate_id=req.delegate_id, permission=req.permission,
        memory_ids=tuple(req.memory_ids), tags=tuple(req.tags), max_depth=opt(req, "max_depth"),
        expires_in_hours=opt(req, "expires_in_hours"),
    )


def consolidate_input(req: pb.ConsolidateRequest) -> ConsolidateInput:
    return ConsolidateInput(
        memory_ids=tuple(req.memory_ids), topic_name=req.topic_name,
        agent_id=opt(req, "agent_id"), summary=opt(req, "summary"),
        supersede=opt(req, "supersede"), thread_id=opt(req, "thread_id"),
        metadata=opt(req, "metadata"),
    )


def consolidate_response(t: TopicOutcome) -> pb.ConsolidateResponse:
    out = pb.ConsolidateResponse(
        topic_document_id=t.memory.uuid, topic_name=t.topic_name,
        source_count=len(t.member_ids), version=t.version, member_ids=list(t.member_ids),
        content_hash=t.memory.content_hash, consolidation_event_id=str(t.consolidation_event),
    )
    if t.superseded_id is not None:
        out.superseded_id = t.superseded_id
    if t.revision_event is not None:
        out.revision_event_id = str(t.revision_event)
    return out


def replay_response(r: ReplayOutcome) -> pb.ReplayResponse:
    return pb.ReplayResponse(
        checkpoint_json=json.dumps(r.checkpoint_json, ensure_ascii=False, sort_keys=True),
        memories=[pb.ReplayMemory(id=m.uuid, content=m.text, memory_type=m.memory_type,
                                  created_at=m.created_at) for m in r.memories],
        event_count=r.event_count, chain_valid=r.chain.valid, chain_total=r.chain.total,
        chain_verified=r.chain.verified,
    )


def verify_response(v: VerifyOutcome) -> pb.VerifyResponse:
    out = pb.VerifyResponse(valid=v.valid, total_records=v.total, verified_records=v.verified)
    if v.first_broken_id is not None:
        out.first_broken_at = v.first_broken_id
    if v.error is not None:
        out.error_message = v.error
    return out


def _finding(f: Finding) -> pb.TrajectoryFinding:
    return pb.TrajectoryFinding(severity=f.severity, count=f.count)


def audit_response(a: AuditReport) -> pb.TrajectoryAuditResponse:
    return pb.TrajectoryAuditResponse(
        scope_label=a.scope_label, event_count=a.event_count, all_ok=a.all_ok,
        unregulated_growth=_finding(a.growth), missing_semantic_revision=_finding(a.revision),
        capacity_driven_forgetting=_finding(a.capacity), read_only_retrieval=_finding(a.read_only),
        report_json=json.dumps(a.report, ensure_ascii=False, sort_keys=True),
    )


def subject_response(s: SubjectOutcome) -> pb.ForgetSubjectResponse:
    return pb.ForgetSubjectResponse(
        subject_id=s.subject_id, strategy=s.strategy, matched=s.matched,
        forgotten=list(s.forgotten), cascaded_events=s.events,
        errors=[pb.ForgetError(id=i, error=e) for i, e in s.errors],
    )

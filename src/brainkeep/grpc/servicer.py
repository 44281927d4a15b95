"""``mnemo.v1.MnemoService``: parse the proto, call ``brain.mnemo``, build the proto.

No rule lives here (they are in ``core.memory``); errors become statuses in
``grpc.errors.rpc``.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import Any, TypeAlias

import grpc

from brainkeep.core.memory.mnemo import MnemoService
from brainkeep.core.origin import GRPC_ORIGIN_HEADER, GRPC_QUARANTINED_HEADER, ORIGIN_KIND
from brainkeep.grpc import convert
from brainkeep.grpc.convert import opt
from brainkeep.grpc.errors import rpc
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc

DEGRADED_HEADER = "x-brainkeep-degraded"
# The forget receipt of a purging Forget/ForgetSubject (docs/grpc.md): the
# Mnemo responses have no field for it, so it travels as trailing metadata.
RECEIPT_TRAILER = "x-brainkeep-forget-receipt"
Ctx: TypeAlias = grpc.ServicerContext


def _send_receipt(context: Ctx, receipt: dict[str, Any] | None) -> None:
    if receipt is not None:  # ASCII JSON: metadata values must be printable ASCII
        context.set_trailing_metadata(((RECEIPT_TRAILER, json.dumps(receipt)),))


class MnemoServicer(mnemo_pb2_grpc.MnemoServiceServicer):
    """The 14 RPCs over one brain's ``MnemoService``."""

    def __init__(self, mnemo: MnemoService) -> None:
        self.mnemo = mnemo

    def session(self) -> AbstractContextManager[None]:
        """What ``rpc`` holds around a call: the store's session (one pool checkout)."""
        return self.mnemo.ctx.store.session()

    @rpc
    def Remember(self, request: pb.RememberRequest, context: Ctx) -> pb.RememberResponse:
        memory = self.mnemo.remember(convert.remember_input(request))
        if memory.quarantined:
            # mnemo.proto has no field for it: trailing metadata, which clients may ignore.
            context.set_trailing_metadata(((GRPC_QUARANTINED_HEADER, "true"),))
        return pb.RememberResponse(id=memory.uuid, content_hash=memory.content_hash)

    @rpc
    def Recall(self, request: pb.RecallRequest, context: Ctx) -> pb.RecallResponse:
        req = convert.recall_input(request)
        result = self.mnemo.recall(req)
        trailers = [(GRPC_ORIGIN_HEADER, ORIGIN_KIND)]
        if result.degraded:
            trailers.append((DEGRADED_HEADER, result.degraded))
        context.set_trailing_metadata(tuple(trailers))
        return convert.recall_response(result, req.explain)

    @rpc
    def Forget(self, request: pb.ForgetRequest, context: Ctx) -> pb.ForgetResponse:
        outcome = self.mnemo.forget(list(request.memory_ids), opt(request, "strategy"),
                                    opt(request, "agent_id"))
        _send_receipt(context, outcome.receipt)
        return convert.forget_response(outcome)

    @rpc
    def Health(self, request: pb.HealthRequest, context: Ctx) -> pb.HealthResponse:
        status, version = self.mnemo.health()
        return pb.HealthResponse(status=status, version=version)

    @rpc
    def Share(self, request: pb.ShareRequest, context: Ctx) -> pb.ShareResponse:
        return convert.share_response(self.mnemo.share(convert.share_input(request)))

    @rpc
    def Checkpoint(self, request: pb.CheckpointRequest, context: Ctx) -> pb.CheckpointResponse:
        cp = self.mnemo.checkpoint(
            thread_id=request.thread_id, agent_id=opt(request, "agent_id"),
            branch_name=opt(request, "branch_name"), state_snapshot=request.state_snapshot,
            label=opt(request, "label"), metadata=opt(request, "metadata"),
        )
        return pb.CheckpointResponse(checkpoint_id=cp.id, parent_id=cp.parent_id,
                                     branch_name=cp.branch_name)

    @rpc
    def Consolidate(self, request: pb.ConsolidateRequest, context: Ctx
                    ) -> pb.ConsolidateResponse:
        topic = self.mnemo.consolidate(convert.consolidate_input(request))
        if topic.memory.quarantined:
            context.set_trailing_metadata(((GRPC_QUARANTINED_HEADER, "true"),))
        return convert.consolidate_response(topic)

    @rpc
    def Branch(self, request: pb.BranchRequest, context: Ctx) -> pb.BranchResponse:
        cp = self.mnemo.branch(
            thread_id=request.thread_id, agent_id=opt(request, "agent_id"),
            new_branch_name=request.new_branch_name,
            source_checkpoint_id=opt(request, "source_checkpoint_id"),
            source_branch=opt(request, "source_branch"),
        )
        return pb.BranchResponse(checkpoint_id=cp.id, branch_name=cp.branch_name,
                                 source_checkpoint_id=cp.parent_id or "")

    @rpc
    def Merge(self, request: pb.MergeRequest, context: Ctx) -> pb.MergeResponse:
        outcome = self.mnemo.merge(
            thread_id=request.thread_id, agent_id=opt(request, "agent_id"),
            source_branch=request.source_branch, target_branch=opt(request, "target_branch"),
            strategy=opt(request, "strategy"), cherry_pick_ids=tuple(request.cherry_pick_ids),
        )
        return pb.MergeResponse(checkpoint_id=outcome.checkpoint.id,
                                target_branch=outcome.checkpoint.branch_name,
                                merged_memory_count=outcome.merged_memory_count)

    @rpc
    def Replay(self, request: pb.ReplayRequest, context: Ctx) -> pb.ReplayResponse:
        outcome = self.mnemo.replay(
            thread_id=request.thread_id, agent_id=opt(request, "agent_id"),
            checkpoint_id=opt(request, "checkpoint_id"),
            branch_name=opt(request, "branch_name"), as_of=opt(request, "as_of"),
        )
        return convert.replay_response(outcome)

    @rpc
    def Delegate(self, request: pb.DelegateRequest, context: Ctx) -> pb.DelegateResponse:
        record = self.mnemo.delegate(convert.delegate_input(request))
        return pb.DelegateResponse(delegation_id=record.id)

    @rpc
    def Verify(self, request: pb.VerifyRequest, context: Ctx) -> pb.VerifyResponse:
        outcome = self.mnemo.verify(opt(request, "agent_id"), opt(request, "thread_id"))
        return convert.verify_response(outcome)

    @rpc
    def TrajectoryAudit(self, request: pb.TrajectoryAuditRequest, context: Ctx
                        ) -> pb.TrajectoryAuditResponse:
        report = self.mnemo.trajectory_audit(
            agent_id=opt(request, "agent_id"), thread_id=opt(request, "thread_id"),
            active_bank_ceiling=opt(request, "active_bank_ceiling"),
            fact_key=opt(request, "fact_key"),
            named_forget_strategies=tuple(request.named_forget_strategies),
        )
        return convert.audit_response(report)

    @rpc
    def ForgetSubject(self, request: pb.ForgetSubjectRequest, context: Ctx
                      ) -> pb.ForgetSubjectResponse:
        outcome = self.mnemo.forget_subject(request.subject_id, opt(request, "strategy"),
                                            opt(request, "agent_id"))
        _send_receipt(context, outcome.receipt)
        return convert.subject_response(outcome)

"""``MnemoService``: one method per Mnemo RPC over one brain (``Brain.mnemo``).

Front ends translate their wire format to these inputs and back.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep import __version__
from brainkeep.core.memory import (
    checkpoints,
    consolidate,
    delegation,
    forget,
    recall,
    remember,
    sharing,
    subject,
    thread_scope,
    trajectory,
)
from brainkeep.core.memory import validation as v
from brainkeep.core.memory.context import MemoryVectors, MnemoContext
from brainkeep.core.memory.models import (
    Checkpoint,
    Delegation,
    ForgetOutcome,
    MergeOutcome,
    RecallResult,
    ReplayOutcome,
    ShareOutcome,
    SubjectOutcome,
    TopicOutcome,
    VerifyOutcome,
)
from brainkeep.core.models import Memory
from brainkeep.core.verify import verify_memories

__all__ = ["MnemoService", "MnemoContext", "MemoryVectors"]


@dataclass(frozen=True)
class MnemoService:
    """The 14 Mnemo operations over one brain."""

    ctx: MnemoContext

    def remember(self, req: remember.RememberInput) -> Memory:
        return remember.remember(self.ctx, req)

    def recall(self, req: recall.RecallInput) -> RecallResult:
        return recall.recall(self.ctx, req)

    def forget(self, memory_ids: list[str], strategy: str | None,
               agent_id: str | None) -> ForgetOutcome:
        return forget.forget(self.ctx, memory_ids, strategy, agent_id)

    def flush_reads(self) -> int:
        """Write buffered recall access counts and read events now (server stop, tests)."""
        return self.ctx.reads.flush()

    def health(self) -> tuple[str, str]:
        """("ok", version) when the store answers a read; a failing store raises."""
        self.ctx.store.get_meta("created_at")
        return "ok", __version__

    def share(self, req: sharing.ShareInput) -> ShareOutcome:
        return sharing.share(self.ctx, req)

    def delegate(self, req: delegation.DelegateInput) -> Delegation:
        return delegation.delegate(self.ctx, req)

    def checkpoint(self, *, thread_id: str, agent_id: str | None, branch_name: str | None,
                   state_snapshot: str, label: str | None, metadata: str | None) -> Checkpoint:
        return checkpoints.checkpoint(
            self.ctx, thread_id=thread_id, agent_id=agent_id, branch_name=branch_name,
            state_snapshot=state_snapshot, label=label, metadata=metadata,
        )

    def branch(self, *, thread_id: str, agent_id: str | None, new_branch_name: str,
               source_checkpoint_id: str | None, source_branch: str | None) -> Checkpoint:
        return checkpoints.branch(
            self.ctx, thread_id=thread_id, agent_id=agent_id, new_branch_name=new_branch_name,
            source_checkpoint_id=source_checkpoint_id, source_branch=source_branch,
        )

    def merge(self, *, thread_id: str, agent_id: str | None, source_branch: str,
              target_branch: str | None, strategy: str | None,
              cherry_pick_ids: tuple[str, ...]) -> MergeOutcome:
        return checkpoints.merge(
            self.ctx, thread_id=thread_id, agent_id=agent_id, source_branch=source_branch,
            target_branch=target_branch, strategy=strategy, cherry_pick_ids=cherry_pick_ids,
        )

    def replay(self, *, thread_id: str, agent_id: str | None, checkpoint_id: str | None,
               branch_name: str | None, as_of: str | None) -> ReplayOutcome:
        return checkpoints.replay(
            self.ctx, thread_id=thread_id, agent_id=agent_id, checkpoint_id=checkpoint_id,
            branch_name=branch_name, as_of=as_of,
        )

    def consolidate(self, req: consolidate.ConsolidateInput) -> TopicOutcome:
        return consolidate.consolidate(self.ctx, req)

    def verify(self, agent_id: str | None, thread_id: str | None) -> VerifyOutcome:
        """Chains of one agent (validated) or of all agents when ``agent_id`` is None.

        The one verifier ``brainkeep verify`` runs too (core/verify.py), and
        always its full walk: the whole event log, every page and grant, and
        every row of the chains; what it reports is the reader's scope
        (core/memory/thread_scope.py): no other org's memories, no hidden ids.
        A clean walk of the whole brain records its head (for
        ``verify --since-verified``); a break forgets every recorded head.
        """
        agent = None if agent_id is None else v.agent_id(agent_id)
        thread = v.label(thread_id, "thread_id")
        visible = thread_scope.record_filter(self.ctx, thread_scope.reader_scope(agent),
                                             agent, thread)
        return verify_memories(
            self.ctx.store, agent, thread, visible=visible,
            now=self.ctx.clock.now_ts(),
            transact=self.ctx.transact, side=self.ctx.verify_side)

    def trajectory_audit(self, *, agent_id: str | None, thread_id: str | None,
                         active_bank_ceiling: int | None, fact_key: str | None,
                         named_forget_strategies: tuple[str, ...]) -> trajectory.AuditReport:
        return trajectory.audit(
            self.ctx, agent_id=agent_id, thread_id=thread_id,
            active_bank_ceiling=active_bank_ceiling, fact_key=fact_key,
            named_forget_strategies=named_forget_strategies,
        )

    def forget_subject(self, subject_id: str, strategy: str | None,
                       agent_id: str | None) -> SubjectOutcome:
        return subject.forget_subject(self.ctx, subject_id, strategy, agent_id)

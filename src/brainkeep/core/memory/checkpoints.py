"""Checkpoint, Branch, Merge, Replay: versioned state of one agent's thread.

A checkpoint stores the caller's ``state_snapshot`` (JSON), the ids of the
agent's live memories in the thread at that moment (``memory_refs``) and the
event-log cursor. A branch is the sequence of checkpoints sharing a name
(default ``main``); its head is the newest. Checkpoints are never edited.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brainkeep.core.ids import uuid7
from brainkeep.core.memory import thread_scope
from brainkeep.core.memory import validation as v
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.models import (
    DEFAULT_BRANCH,
    MERGE_STRATEGIES,
    Checkpoint,
    MergeOutcome,
    ReplayOutcome,
)
from brainkeep.core.verify import verify_memories
from brainkeep.errors import InvalidInput, NotFound


@dataclass(frozen=True)
class Thread:
    """The (agent, thread) a checkpoint call addresses."""

    agent_id: str
    thread_id: str

    @classmethod
    def parse(cls, agent_id: str | None, thread_id: str | None) -> Thread:
        thread = v.label(thread_id, "thread_id", required=True)
        assert thread is not None
        return cls(v.agent_id(agent_id), thread)


def _branch(name: str | None, field: str) -> str:
    return v.label(name, field) or DEFAULT_BRANCH


def _head(ctx: MnemoContext, t: Thread, branch: str) -> Checkpoint:
    head = ctx.store.branch_head(t.agent_id, t.thread_id, branch)
    if head is None:
        raise NotFound(
            f"Branch {branch!r} of thread {t.thread_id!r} has no checkpoint.",
            suggestion="Create one with Checkpoint first.",
            field="branch_name",
        )
    return head


def _owned(ctx: MnemoContext, t: Thread, checkpoint_id: str, field: str) -> Checkpoint:
    # A checkpoint id is a UUID: anything longer names none, and quoting it
    # whole would overflow gRPC's 16 KB status header.
    checkpoint_id = v.label(checkpoint_id, field) or ""
    found = ctx.store.get_checkpoint(checkpoint_id)
    if found is None or found.agent_id != t.agent_id or found.thread_id != t.thread_id:
        raise NotFound(f"No checkpoint {checkpoint_id!r} in thread {t.thread_id!r}.",
                       field=field)
    return found


def _write(ctx: MnemoContext, t: Thread, now: str, **fields: Any) -> Checkpoint:
    record = Checkpoint(seq=0, id=uuid7(), agent_id=t.agent_id, thread_id=t.thread_id,
                        event_cursor=ctx.store.max_event_seq(), created_at=now, **fields)
    stored = ctx.store.insert_checkpoint(record)
    ctx.log(f"checkpoint.{stored.kind}", "checkpoint", stored.id,
            {"agent_id": t.agent_id, "thread_id": t.thread_id, "branch": stored.branch_name,
             "parent_id": stored.parent_id, "merge_parent_id": stored.merge_parent_id,
             "memory_refs": len(stored.memory_refs)},
            actor=t.agent_id, now=now)
    return stored


def checkpoint(ctx: MnemoContext, *, thread_id: str, agent_id: str | None,
               branch_name: str | None, state_snapshot: str, label: str | None,
               metadata: str | None) -> Checkpoint:
    """Append a checkpoint to the branch head (the head becomes its parent)."""
    t = Thread.parse(agent_id, thread_id)
    branch = _branch(branch_name, "branch_name")
    snapshot = v.json_object(state_snapshot, "state_snapshot", allow_any=True)
    meta = v.json_object(metadata, "metadata")
    name = v.label(label, "label", max_chars=1024)

    def work() -> Checkpoint:
        now = ctx.clock.now_ts()
        head = ctx.store.branch_head(t.agent_id, t.thread_id, branch)
        refs = ctx.store.thread_memories(ctx.source_id, t.agent_id, t.thread_id,
                                               at=now, as_of=False)
        return _write(ctx, t, now, branch_name=branch,
                      parent_id=None if head is None else head.id, merge_parent_id=None,
                      kind="checkpoint", label=name, state_snapshot=snapshot, metadata=meta,
                      memory_refs=tuple(m.uuid for m in refs))

    return ctx.transact(work)


def branch(ctx: MnemoContext, *, thread_id: str, agent_id: str | None, new_branch_name: str,
           source_checkpoint_id: str | None, source_branch: str | None) -> Checkpoint:
    """Fork ``new_branch_name`` from a checkpoint (default: the source branch head)."""
    t = Thread.parse(agent_id, thread_id)
    new = v.label(new_branch_name, "new_branch_name", required=True)
    assert new is not None

    def work() -> Checkpoint:
        now = ctx.clock.now_ts()
        if ctx.store.branch_head(t.agent_id, t.thread_id, new) is not None:
            raise InvalidInput(f"Branch {new!r} already exists in thread {t.thread_id!r}.",
                               suggestion="Pick another name, or Checkpoint onto it.",
                               field="new_branch_name")
        if source_checkpoint_id:
            source = _owned(ctx, t, source_checkpoint_id, "source_checkpoint_id")
        else:
            source = _head(ctx, t, _branch(source_branch, "source_branch"))
        return _write(ctx, t, now, branch_name=new, parent_id=source.id, merge_parent_id=None,
                      kind="branch", label=f"branch from {source.branch_name}",
                      state_snapshot=source.state_snapshot,
                      metadata={"forked_from": source.id},
                      memory_refs=source.memory_refs)

    return ctx.transact(work)


def _merged_snapshot(target: Any, source: Any) -> Any:
    if isinstance(target, dict) and isinstance(source, dict):
        return {**target, **source}
    return source


def merge(ctx: MnemoContext, *, thread_id: str, agent_id: str | None, source_branch: str,
          target_branch: str | None, strategy: str | None,
          cherry_pick_ids: tuple[str, ...]) -> MergeOutcome:
    """Merge ``source_branch`` into ``target_branch`` (default ``main``).

    * ``full_merge``: union of memory refs, snapshot keys of the source win,
      the source head is kept as a second parent;
    * ``squash``: the same content as one commit without the second parent
      (the source history is collapsed; its checkpoint ids go to metadata);
    * ``cherry_pick``: only ``cherry_pick_ids`` (memory ids on the source
      branch) join the target; the target snapshot is kept.
    """
    t = Thread.parse(agent_id, thread_id)
    source_name = v.label(source_branch, "source_branch", required=True)
    assert source_name is not None
    target_name = _branch(target_branch, "target_branch")
    if source_name == target_name:
        raise InvalidInput("source_branch and target_branch are the same.",
                           field="source_branch")
    chosen = v.choice(strategy, MERGE_STRATEGIES, "strategy", "full_merge")
    picks = v.id_list(cherry_pick_ids, "cherry_pick_ids")
    if chosen == "cherry_pick" and not picks:
        raise InvalidInput("cherry_pick needs `cherry_pick_ids`.", field="cherry_pick_ids")

    def work() -> MergeOutcome:
        now = ctx.clock.now_ts()
        source = _head(ctx, t, source_name)
        target = _head(ctx, t, target_name)
        meta: dict[str, Any] = {"strategy": chosen, "source_branch": source_name,
                                "source_head": source.id}
        if chosen == "cherry_pick":
            missing = [p for p in picks if p not in source.memory_refs]
            if missing:
                raise InvalidInput(f"Not on branch {source_name!r}: {', '.join(missing)}.",
                                   field="cherry_pick_ids")
            incoming, snapshot = picks, target.state_snapshot
        else:
            incoming = source.memory_refs
            snapshot = _merged_snapshot(target.state_snapshot, source.state_snapshot)
        if chosen == "squash":
            meta["squashed"] = [c.id for c in ctx.store.branch_checkpoints(
                t.agent_id, t.thread_id, source_name)]
        added = [r for r in incoming if r not in target.memory_refs]
        stored = _write(ctx, t, now, branch_name=target_name, parent_id=target.id,
                        merge_parent_id=source.id if chosen == "full_merge" else None,
                        kind="merge", label=f"{chosen} {source_name} into {target_name}",
                        state_snapshot=snapshot, metadata=meta,
                        memory_refs=target.memory_refs + tuple(added))
        return MergeOutcome(stored, len(added))

    return ctx.transact(work)


def replay(ctx: MnemoContext, *, thread_id: str, agent_id: str | None,
           checkpoint_id: str | None, branch_name: str | None,
           as_of: str | None) -> ReplayOutcome:
    """A checkpoint's state, memories and chain status; or a virtual one ``as_of``.

    The request's agent reads in the no-org tenant (Replay has no ``org_id``):
    memories, ``memory_refs``, the event count and the chain totals cover only
    what that reader may see now (core/memory/thread_scope.py). A checkpoint
    keeps every ref it recorded; a ref hidden or hard-deleted is left out.
    """
    t = Thread.parse(agent_id, thread_id)
    at = v.timestamp(as_of, "as_of")
    name = _branch(branch_name, "branch_name")
    scope, now = thread_scope.reader_scope(t.agent_id), ctx.clock.now_ts()
    if at:
        base = ctx.store.latest_checkpoint_before(t.agent_id, t.thread_id, name, at)
        memories = ctx.store.thread_memories(ctx.source_id, t.agent_id, t.thread_id,
                                                   at=at, as_of=True, scope=scope, now=now)
        body: dict[str, Any] = {
            "id": None, "virtual": True, "as_of": at, "thread_id": t.thread_id,
            "agent_id": t.agent_id, "branch_name": name,
            "based_on": None if base is None else base.id,
            "state_snapshot": None if base is None else base.state_snapshot,
            "memory_refs": [m.uuid for m in memories],
        }
        events = ctx.store.count_memory_events([m.uuid for m in memories],
                                                     max_seq=None, max_ts=at)
        upto = at
    else:
        cp = (_owned(ctx, t, checkpoint_id, "checkpoint_id") if checkpoint_id
              else _head(ctx, t, name))
        found = ctx.store.memories_by_uuid(list(cp.memory_refs))
        sees = thread_scope.memory_filter(ctx, scope, now)
        memories = [found[r] for r in cp.memory_refs  # hard-deleted: gone
                    if r in found and sees(found[r])]
        refs = [m.uuid for m in memories]
        body = {
            "id": cp.id, "virtual": False, "thread_id": cp.thread_id, "agent_id": cp.agent_id,
            "branch_name": cp.branch_name, "parent_id": cp.parent_id,
            "merge_parent_id": cp.merge_parent_id, "kind": cp.kind, "label": cp.label,
            "state_snapshot": cp.state_snapshot, "metadata": cp.metadata,
            "memory_refs": refs, "event_cursor": cp.event_cursor,
            "created_at": cp.created_at,
        }
        events = ctx.store.count_memory_events(refs, max_seq=cp.event_cursor, max_ts=None)
        upto = cp.created_at
    # Oldest first, up to the replayed instant: the reference walked newest-first.
    status = verify_memories(
        ctx.store, t.agent_id, t.thread_id, created_before=upto, check_log=False,
        visible=thread_scope.record_filter(ctx, scope, t.agent_id, t.thread_id,
                                           created_before=upto))
    return ReplayOutcome(body, tuple(memories), events, status)

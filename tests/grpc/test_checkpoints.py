"""Checkpoint, Branch, Merge, Replay."""

from __future__ import annotations

import json

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.grpc.support import assert_brain_valid, remember, rpc_error

T = {"thread_id": "t1", "agent_id": "alice"}


def _cp(stub, snapshot: dict, **fields) -> pb.CheckpointResponse:
    return stub.Checkpoint(pb.CheckpointRequest(state_snapshot=json.dumps(snapshot),
                                                **{**T, **fields}))


def test_checkpoints_chain_with_parents(stub, brain: Brain) -> None:
    m1 = remember(stub, "step one", thread_id="t1")
    first = _cp(stub, {"step": 1}, label="start", metadata='{"by": "test"}')
    assert first.branch_name == "main" and not first.HasField("parent_id")
    remember(stub, "elsewhere", thread_id="t2")
    m2 = remember(stub, "step two", thread_id="t1")
    second = _cp(stub, {"step": 2})
    assert second.parent_id == first.checkpoint_id
    stored = brain.store.get_checkpoint(second.checkpoint_id)
    assert stored.memory_refs == (m1, m2)
    assert stored.state_snapshot == {"step": 2}
    assert_brain_valid(brain, stub)


def test_branch_merge_and_replay(stub, brain: Brain) -> None:
    m1 = remember(stub, "base fact", thread_id="t1")
    base = _cp(stub, {"a": 1, "b": 1})
    branch = stub.Branch(pb.BranchRequest(new_branch_name="exp", **T))
    assert branch.branch_name == "exp" and branch.source_checkpoint_id == base.checkpoint_id
    m2 = remember(stub, "experiment fact", thread_id="t1")
    exp_head = _cp(stub, {"b": 2, "c": 3}, branch_name="exp")
    assert exp_head.parent_id == branch.checkpoint_id

    merged = stub.Merge(pb.MergeRequest(source_branch="exp", **T))
    assert merged.target_branch == "main" and merged.merged_memory_count == 1
    replay = stub.Replay(pb.ReplayRequest(**T))
    body = json.loads(replay.checkpoint_json)
    assert body["id"] == merged.checkpoint_id
    assert body["state_snapshot"] == {"a": 1, "b": 2, "c": 3}
    assert body["merge_parent_id"] == exp_head.checkpoint_id
    assert [m.id for m in replay.memories] == [m1, m2]
    assert replay.chain_valid and replay.chain_total == 2 and replay.chain_verified == 2
    assert replay.event_count == 2  # one insert event per referenced memory

    old = stub.Replay(pb.ReplayRequest(checkpoint_id=base.checkpoint_id, **T))
    assert [m.id for m in old.memories] == [m1]
    assert json.loads(old.checkpoint_json)["state_snapshot"] == {"a": 1, "b": 1}
    assert old.chain_total == 1  # the chain as of that checkpoint, oldest first
    assert_brain_valid(brain, stub)


def test_cherry_pick_and_squash(stub) -> None:
    _cp(stub, {"v": 0})
    stub.Branch(pb.BranchRequest(new_branch_name="side", **T))
    keep = remember(stub, "keep me", thread_id="t1")
    skip = remember(stub, "skip me", thread_id="t1")
    _cp(stub, {"v": 1}, branch_name="side")
    picked = stub.Merge(pb.MergeRequest(source_branch="side", strategy="cherry_pick",
                                        cherry_pick_ids=[keep], **T))
    assert picked.merged_memory_count == 1
    main = stub.Replay(pb.ReplayRequest(**T))
    assert [m.id for m in main.memories] == [keep]
    assert json.loads(main.checkpoint_json)["state_snapshot"] == {"v": 0}
    squashed = stub.Merge(pb.MergeRequest(source_branch="side", strategy="squash", **T))
    assert squashed.merged_memory_count == 1  # only `skip` is new to main
    body = json.loads(stub.Replay(pb.ReplayRequest(**T)).checkpoint_json)
    assert body["merge_parent_id"] is None and len(body["metadata"]["squashed"]) == 2
    assert skip in body["memory_refs"]


def test_replay_as_of_is_a_virtual_checkpoint(stub, clock) -> None:
    early = remember(stub, "early", thread_id="t1")
    _cp(stub, {"phase": "early"})
    clock.advance(seconds=10)
    instant = clock.now_ts()
    clock.advance(seconds=10)
    stub.Forget(pb.ForgetRequest(memory_ids=[early], agent_id="alice"))
    remember(stub, "late", thread_id="t1")
    replay = stub.Replay(pb.ReplayRequest(as_of=instant, **T))
    body = json.loads(replay.checkpoint_json)
    assert body["virtual"] is True and body["state_snapshot"] == {"phase": "early"}
    assert [m.id for m in replay.memories] == [early]
    assert replay.chain_valid and replay.chain_total == 1


def test_replay_reports_a_broken_chain(stub, db) -> None:
    mid = remember(stub, "original", thread_id="t1")
    _cp(stub, {})
    db.execute("UPDATE memories SET text = 'tampered' WHERE uuid = ?", (mid,))
    replay = stub.Replay(pb.ReplayRequest(**T))
    assert replay.chain_valid is False and replay.chain_verified == 0


@pytest.mark.parametrize(
    ("call", "request_", "code"),
    [
        ("Checkpoint", pb.CheckpointRequest(thread_id="", state_snapshot="{}"),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("Checkpoint", pb.CheckpointRequest(thread_id="t1", state_snapshot="{bad"),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("Checkpoint", pb.CheckpointRequest(thread_id="t1", metadata="[1]"),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("Branch", pb.BranchRequest(thread_id="t1", new_branch_name="x"),
         grpc.StatusCode.NOT_FOUND),
        ("Branch", pb.BranchRequest(thread_id="t1", new_branch_name=""),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("Branch", pb.BranchRequest(thread_id="t1", new_branch_name="x",
                                    source_checkpoint_id="nope"), grpc.StatusCode.NOT_FOUND),
        ("Merge", pb.MergeRequest(thread_id="t1", source_branch="ghost"),
         grpc.StatusCode.NOT_FOUND),
        ("Merge", pb.MergeRequest(thread_id="t1", source_branch="main"),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("Merge", pb.MergeRequest(thread_id="t1", source_branch="x", strategy="rebase"),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("Merge", pb.MergeRequest(thread_id="t1", source_branch="x", strategy="cherry_pick"),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("Replay", pb.ReplayRequest(thread_id="t1"), grpc.StatusCode.NOT_FOUND),
        ("Replay", pb.ReplayRequest(thread_id="t1", checkpoint_id="nope"),
         grpc.StatusCode.NOT_FOUND),
        ("Replay", pb.ReplayRequest(thread_id="t1", as_of="not a time"),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("Replay", pb.ReplayRequest(thread_id=""), grpc.StatusCode.INVALID_ARGUMENT),
    ],
)
def test_checkpoint_errors(stub, call, request_, code) -> None:
    assert rpc_error(getattr(stub, call), request_).code() == code


def test_branch_name_taken_and_other_agents_checkpoints(stub) -> None:
    first = _cp(stub, {})
    error = rpc_error(stub.Branch, pb.BranchRequest(new_branch_name="main", **T))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    foreign = rpc_error(stub.Replay, pb.ReplayRequest(
        thread_id="t1", agent_id="bob", checkpoint_id=first.checkpoint_id))
    assert foreign.code() == grpc.StatusCode.NOT_FOUND

"""Hostile input over a real gRPC server: every case is INVALID_ARGUMENT with a fix,
never INTERNAL, and the brain stays verifiable (issue 10, items 2, 4, 14)."""

from __future__ import annotations

import json
import time
from typing import Any

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.core import limits
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.grpc.support import assert_brain_valid, remember, rpc_error

T = {"thread_id": "t1", "agent_id": "alice"}
DEEP = "[" * 10_000 + "]" * 10_000


def invalid(call: Any, request: Any, needle: str) -> str:
    error = rpc_error(call, request)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (error.code(), error.details())
    details = error.details() or ""
    assert needle in details, details
    return details


@pytest.mark.parametrize(
    "metadata",
    [DEEP, '{"a": ' + DEEP + "}", '{"score": NaN}', '{"score": Infinity}', '{"n": 1e400}',
     '{"s": "a\\u0000b"}'],
    ids=["deep", "deep-inside", "nan", "infinity", "1e400", "escaped-nul"],
)
def test_remember_metadata_hostile_json(stub, brain: Brain, metadata: str) -> None:
    invalid(stub.Remember, pb.RememberRequest(content="x", agent_id="alice", metadata=metadata),
            "metadata")
    assert_brain_valid(brain, stub)


def test_checkpoint_state_snapshot_nested_10000_deep(stub) -> None:
    remember(stub, "a memory", thread_id="t1")
    details = invalid(stub.Checkpoint, pb.CheckpointRequest(state_snapshot=DEEP, **T),
                      "state_snapshot")
    assert str(limits.MAX_JSON_DEPTH) in details
    invalid(stub.Checkpoint, pb.CheckpointRequest(state_snapshot="{}", metadata=DEEP, **T),
            "metadata")


def test_consolidate_metadata_nan(stub) -> None:
    ids = [remember(stub, f"fact {i}") for i in range(2)]
    invalid(stub.Consolidate, pb.ConsolidateRequest(memory_ids=ids, topic_name="topic",
                                                    agent_id="alice", metadata='{"x": NaN}'),
            "metadata")


def test_share_fan_out_is_capped(stub, brain: Brain) -> None:
    memory = remember(stub, "shared fact")
    started = time.monotonic()
    details = invalid(stub.Share, pb.ShareRequest(
        memory_id=memory, agent_id="alice",
        target_agent_ids=[f"agent-{i}" for i in range(100_000)]), "target")
    assert time.monotonic() - started < 5.0
    assert str(limits.MAX_SHARE_TARGETS) in details
    over = [f"agent-{i}" for i in range(limits.MAX_SHARE_TARGETS + 1)]
    invalid(stub.Share, pb.ShareRequest(memory_id=memory, agent_id="alice",
                                        target_agent_ids=over), "target")
    at_cap = over[: limits.MAX_SHARE_TARGETS]
    reply = stub.Share(pb.ShareRequest(memory_id=memory, agent_id="alice",
                                       target_agent_ids=at_cap))
    assert len(reply.acl_ids) == limits.MAX_SHARE_TARGETS
    assert_brain_valid(brain, stub)


def test_share_grants_product_is_capped(stub) -> None:
    memories = [remember(stub, f"fact {i}") for i in range(11)]
    targets = [f"agent-{i}" for i in range(limits.MAX_SHARE_TARGETS)]  # 11 x 100 > 1,000
    invalid(stub.Share, pb.ShareRequest(memory_ids=memories, agent_id="alice",
                                        target_agent_ids=targets), "grants")


@pytest.mark.parametrize(
    ("rpc", "request_", "field"),
    [
        ("Remember", pb.RememberRequest(content="a\x00b", agent_id="alice"), "content"),
        ("Remember", pb.RememberRequest(content="ok", agent_id="alice", tags=["t\x00"]), "tags"),
        ("Remember", pb.RememberRequest(content="ok", agent_id="alice", thread_id="t\x00"),
         "thread_id"),
        ("Recall", pb.RecallRequest(query="a\x00b"), "query"),
        ("Share", pb.ShareRequest(memory_id="x", target_agent_id="bob\x00"), "target_agent_id"),
        ("ForgetSubject", pb.ForgetSubjectRequest(subject_id="s\x00"), "subject_id"),
    ],
    ids=["content", "tag", "thread", "query", "share-target", "subject"],
)
def test_nul_in_any_string_field(stub, brain: Brain, rpc: str, request_: Any, field: str
                                 ) -> None:
    details = invalid(getattr(stub, rpc), request_, field)
    assert "NUL" in details
    assert_brain_valid(brain, stub)


@pytest.mark.parametrize(
    ("as_of", "needle"),
    [("2026-06-01T12:00:00", "offset"), ("2026-06-01", "offset"),
     ("0001-01-01T00:00:00Z", "1000"), ("0001-01-01T00:00:00+01:00", "as_of")],
    ids=["naive", "date-only", "year-1", "year-1-offset"],
)
def test_as_of_needs_an_offset_and_a_real_year(stub, as_of: str, needle: str) -> None:
    remember(stub, "orchid", thread_id="t1", scope="public")
    invalid(stub.Recall, pb.RecallRequest(query="orchid", as_of=as_of), needle)
    invalid(stub.Replay, pb.ReplayRequest(as_of=as_of, **T), needle)


def test_replay_as_of_renders_a_four_digit_year(stub) -> None:
    remember(stub, "orchid", thread_id="t1")
    body = json.loads(stub.Replay(pb.ReplayRequest(as_of="2026-01-01T00:00:00+00:00",
                                                   **T)).checkpoint_json)
    assert body["as_of"] == "2026-01-01T00:00:00.000000Z"

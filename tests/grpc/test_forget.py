"""Forget: every strategy, per-id errors, events with strategy, verify stays valid."""

from __future__ import annotations

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.grpc.support import assert_brain_valid, recall_ids, remember, rpc_error

STRATEGIES = ["soft_delete", "hard_delete", "decay", "archive", "consolidate", "redact"]


def _chain(stub) -> list[str]:
    """Three chained memories of alice; the middle one is the one to forget."""
    return [remember(stub, f"gazelle note {i}", scope="public") for i in range(3)]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_strategy_keeps_the_brain_verifiable(stub, brain: Brain, strategy) -> None:
    first, middle, last = _chain(stub)
    reply = stub.Forget(pb.ForgetRequest(memory_ids=[middle], strategy=strategy,
                                         agent_id="alice"))
    assert list(reply.forgotten) == [middle] and not reply.errors
    row = brain.store.get_memory_by_uuid(middle)
    events = brain.store.events_for("memory", middle)
    assert events[-1].payload["strategy"] == strategy
    if strategy == "hard_delete":
        assert row is None
        assert events[-1].payload["prev_hash"] == brain.store.get_memory_by_uuid(
            first).content_hash
    elif strategy == "decay":
        assert row.importance == pytest.approx(0.25) and row.deleted_at is None
    else:
        assert row.deleted_at is not None and row.delete_strategy == strategy
    if strategy == "redact":
        assert row.text == "[REDACTED]" and row.redacted_at is not None
        assert "gazelle" not in str([e.payload for e in events])
    # recall no longer returns it (decay only lowers importance)
    ids = recall_ids(stub, "gazelle", strategy="lexical", limit=10)
    assert (middle in ids) == (strategy == "decay")
    remember(stub, "gazelle note after")  # the chain keeps growing past the gap
    assert_brain_valid(brain, stub)


def test_default_strategy_is_soft_delete(stub, brain: Brain) -> None:
    mid = remember(stub, "to forget")
    stub.Forget(pb.ForgetRequest(memory_ids=[mid], agent_id="alice"))
    assert brain.store.get_memory_by_uuid(mid).delete_strategy == "soft_delete"


def test_per_id_errors_never_fail_the_call(stub, brain: Brain) -> None:
    mine = remember(stub, "mine")
    public_other = remember(stub, "bob's public", agent_id="bob", scope="public")
    private_other = remember(stub, "bob's private", agent_id="bob")
    missing = "01900000-0000-7000-8000-000000000000"
    reply = stub.Forget(pb.ForgetRequest(
        memory_ids=[mine, public_other, private_other, missing, "garbage"], agent_id="alice"))
    assert list(reply.forgotten) == [mine]
    assert {(e.id, e.error) for e in reply.errors} == {
        (public_other, "permission denied"),
        (private_other, "not found"),
        (missing, "not found"),
        ("garbage", "invalid id"),
    }
    again = stub.Forget(pb.ForgetRequest(memory_ids=[mine], agent_id="alice"))
    assert [(e.id, e.error) for e in again.errors] == [(mine, "not found")]


def test_delete_grant_allows_forgetting(stub, brain: Brain) -> None:
    mid = remember(stub, "shared for deletion", scope="shared")
    stub.Share(pb.ShareRequest(memory_id=mid, target_agent_id="bob", permission="delete",
                               agent_id="alice"))
    reply = stub.Forget(pb.ForgetRequest(memory_ids=[mid], agent_id="bob"))
    assert list(reply.forgotten) == [mid]
    assert brain.store.events_for("memory", mid)[-1].actor == "bob"


def test_hard_delete_after_soft_delete_purges(stub, brain: Brain) -> None:
    mid = remember(stub, "purge me")
    stub.Forget(pb.ForgetRequest(memory_ids=[mid], agent_id="alice"))
    reply = stub.Forget(pb.ForgetRequest(memory_ids=[mid], strategy="hard_delete",
                                         agent_id="alice"))
    assert list(reply.forgotten) == [mid]
    assert brain.store.get_memory_by_uuid(mid) is None
    assert_brain_valid(brain, stub)


def test_unowned_mcp_facts_follow_the_one_write_rule_over_grpc(stub, brain: Brain) -> None:
    """An unowned world fact is the tenant's: any writer who reads it may forget it (as MCP)."""
    from brainkeep.core.context import LOCAL

    fact = brain.facts.remember("The office is in Lyon", "test", LOCAL).memory
    reply = stub.Forget(pb.ForgetRequest(memory_ids=[fact.uuid], agent_id="alice"))
    assert list(reply.forgotten) == [fact.uuid]
    private = brain.facts.remember("The safe code is 1234", "test", LOCAL,
                                   visibility="private").memory
    reply = stub.Forget(pb.ForgetRequest(memory_ids=[private.uuid], agent_id="alice"))
    assert [e.id for e in reply.errors] == [private.uuid]
    assert brain.store.get_memory_by_uuid(private.uuid).is_active(brain.clock.now_ts())


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"memory_ids": []}, "memory_ids"),
        ({"strategy": "shred"}, "strategy"),
        ({"agent_id": ""}, "agent_id"),
    ],
)
def test_invalid_forget(stub, fields, needle) -> None:
    request = {"memory_ids": ["01900000-0000-7000-8000-000000000000"], **fields}
    error = rpc_error(stub.Forget, pb.ForgetRequest(**request))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert needle in error.details()

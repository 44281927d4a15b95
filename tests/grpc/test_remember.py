"""Remember: defaults, validation, hashing and chaining, one table for both protocols."""

from __future__ import annotations

from datetime import timedelta

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.core.audit import memory_hash
from brainkeep.core.clock import parse_ts
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.grpc.support import assert_brain_valid, remember, rpc_error


def test_defaults_and_stored_row(stub, brain: Brain) -> None:
    reply = stub.Remember(pb.RememberRequest(content="Alice prefers tea", agent_id="alice"))
    memory = brain.store.get_memory_by_uuid(reply.id)
    assert memory is not None
    assert memory.origin == "grpc"
    assert (memory.memory_type, memory.scope, memory.visibility) == (
        "episodic", "private", "private")
    assert memory.importance == pytest.approx(0.5)
    assert memory.valid_until is None
    assert reply.content_hash == memory.content_hash == memory_hash(
        "Alice prefers tea", "alice", memory.created_at)
    assert memory.prev_hash is None
    events = brain.store.events_for("memory", reply.id)
    assert [e.kind for e in events] == ["memory.insert"]
    assert events[0].payload["content_hash"] == memory.content_hash
    assert "Alice prefers tea" not in str(events[0].payload)
    assert_brain_valid(brain, stub)


def test_all_fields(stub, brain: Brain) -> None:
    other = remember(stub, "first", scope="public")
    reply = stub.Remember(pb.RememberRequest(
        content="deploy with make release", memory_type="procedural", scope="global",
        importance=0.3, tags=["ops", "ops", "deploy"], metadata='{"k": 1}', thread_id="t1",
        agent_id="alice", source_type="chat", source_id="msg-9", org_id=None,
        decay_rate=0.1, created_by="alice-bot", related_to=[other.upper()],
    ))
    m = brain.store.get_memory_by_uuid(reply.id)
    assert m is not None
    assert m.importance == pytest.approx(0.8)  # procedural floor
    assert m.visibility == "world" and m.scope == "global"
    assert m.tags == ("ops", "deploy")
    assert m.metadata == {"k": 1}
    assert (m.thread_id, m.source_type, m.source_ref, m.created_by) == (
        "t1", "chat", "msg-9", "alice-bot")
    assert m.decay_rate == pytest.approx(0.1)
    other_id = brain.store.get_memory_by_uuid(other).id
    assert brain.store.memory_relations([m.id]) == [(m.id, other_id)]


def test_working_memory_gets_an_hour_and_ttl_is_honoured(stub, brain: Brain) -> None:
    working = brain.store.get_memory_by_uuid(remember(stub, "scratch", memory_type="working"))
    assert working is not None and working.valid_until is not None
    lifetime = parse_ts(working.valid_until) - parse_ts(working.created_at)
    assert timedelta(minutes=59) < lifetime <= timedelta(hours=1, seconds=1)
    short = brain.store.get_memory_by_uuid(remember(stub, "brief", ttl_seconds=30))
    assert short is not None and short.valid_until is not None
    assert parse_ts(short.valid_until) - parse_ts(short.created_at) <= timedelta(seconds=31)


def test_chain_is_per_agent_and_thread(stub, brain: Brain) -> None:
    a1 = stub.Remember(pb.RememberRequest(content="one", agent_id="alice"))
    b1 = stub.Remember(pb.RememberRequest(content="other agent", agent_id="bob"))
    t1 = stub.Remember(pb.RememberRequest(content="thread", agent_id="alice", thread_id="t"))
    a2 = stub.Remember(pb.RememberRequest(content="two", agent_id="alice"))
    get = brain.store.get_memory_by_uuid
    assert get(b1.id).prev_hash is None
    assert get(t1.id).prev_hash is None
    assert get(a2.id).prev_hash == a1.content_hash
    assert_brain_valid(brain, stub)


def test_missing_agent_means_default_agent(stub, brain: Brain) -> None:
    reply = stub.Remember(pb.RememberRequest(content="anonymous note"))
    assert brain.store.get_memory_by_uuid(reply.id).agent_id == "default"


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"content": ""}, "content"),
        ({"content": "   "}, "content"),
        ({"content": "x" * 70_000}, "content"),
        ({"agent_id": ""}, "agent_id"),
        ({"agent_id": "a" * 257}, "agent_id"),
        ({"agent_id": "bad id!"}, "agent_id"),
        ({"memory_type": "dream"}, "memory_type"),
        ({"scope": "team"}, "scope"),
        ({"importance": 1.5}, "importance"),
        ({"importance": float("nan")}, "importance"),
        ({"metadata": "{not json"}, "metadata"),
        ({"metadata": "[1, 2]"}, "metadata"),
        ({"ttl_seconds": 0}, "ttl_seconds"),
        ({"related_to": ["not-a-uuid"]}, "related_to"),
        ({"tags": [""]}, "tags"),
        ({"org_id": "org with space"}, "org_id"),
        ({"decay_rate": -1.0}, "decay_rate"),
        ({"thread_id": "\n"}, "thread_id"),
    ],
)
def test_invalid_input_is_rejected_and_nothing_written(stub, brain: Brain, fields, needle) -> None:
    request = {"content": "valid text", "agent_id": "alice", **fields}
    error = rpc_error(stub.Remember, pb.RememberRequest(**request))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert needle in error.details()
    assert brain.store.counts()["memories"] == 0

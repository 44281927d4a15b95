"""Share (ACLs) and Delegate (with max_depth enforced)."""

from __future__ import annotations

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.brain_engines import RawDatabase
from tests.grpc.support import assert_brain_valid, recall_ids, remember, rpc_error


def test_share_private_memory_becomes_shared(stub, brain: Brain) -> None:
    mid = remember(stub, "okapi secret")
    assert recall_ids(stub, "okapi", agent_id="bob") == []
    reply = stub.Share(pb.ShareRequest(memory_id=mid, target_agent_id="bob", agent_id="alice"))
    assert reply.permission == "read" and reply.memory_id == mid and reply.shared_with == "bob"
    assert list(reply.acl_ids) == [reply.acl_id] and list(reply.shared_with_all) == ["bob"]
    row = brain.store.get_memory_by_uuid(mid)
    assert (row.scope, row.visibility) == ("shared", "private")
    assert recall_ids(stub, "okapi", agent_id="bob") == [mid]
    assert recall_ids(stub, "okapi", agent_id="carol") == []
    kinds = [e.kind for e in brain.store.iter_events() if e.kind in ("acl.grant", "memory.scope")]
    assert kinds == ["memory.scope", "acl.grant"]
    assert_brain_valid(brain, stub)


def test_share_many_memories_with_many_agents(stub) -> None:
    a, b = remember(stub, "ibis one"), remember(stub, "ibis two")
    reply = stub.Share(pb.ShareRequest(memory_ids=[a, b], target_agent_ids=["bob", "carol"],
                                       permission="write", agent_id="alice"))
    assert len(reply.acl_ids) == 4 and list(reply.shared_with_all) == ["bob", "carol"]
    assert set(recall_ids(stub, "ibis", agent_id="carol")) == {a, b}


def test_share_expires(stub, clock) -> None:
    mid = remember(stub, "tapir news")
    stub.Share(pb.ShareRequest(memory_id=mid, target_agent_id="bob", expires_in_hours=1,
                               agent_id="alice"))
    assert recall_ids(stub, "tapir", agent_id="bob") == [mid]
    clock.advance(hours=2)
    assert recall_ids(stub, "tapir", agent_id="bob") == []


def test_only_owner_or_admin_grant_may_share(stub) -> None:
    mid = remember(stub, "quokka plan")
    stub.Share(pb.ShareRequest(memory_id=mid, target_agent_id="bob", agent_id="alice"))
    denied = rpc_error(stub.Share, pb.ShareRequest(memory_id=mid, target_agent_id="carol",
                                                   agent_id="bob"))
    assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
    stub.Share(pb.ShareRequest(memory_id=mid, target_agent_id="bob", permission="admin",
                               agent_id="alice"))
    stub.Share(pb.ShareRequest(memory_id=mid, target_agent_id="carol", agent_id="bob"))
    assert recall_ids(stub, "quokka", agent_id="carol") == [mid]


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"memory_id": ""}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"target_agent_id": ""}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"target_agent_id": "alice"}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"permission": "own"}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"expires_in_hours": -1}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"memory_id": "01900000-0000-7000-8000-000000000000"}, grpc.StatusCode.NOT_FOUND),
        ({"agent_id": "mallory"}, grpc.StatusCode.NOT_FOUND),
    ],
)
def test_share_errors(stub, fields, code) -> None:
    mid = remember(stub, "share errors")
    request = {"memory_id": mid, "target_agent_id": "bob", "agent_id": "alice", **fields}
    assert rpc_error(stub.Share, pb.ShareRequest(**request)).code() == code


def test_delegate_all_tags_and_ids(stub) -> None:
    tagged = remember(stub, "hyrax tagged", scope="shared", tags=["proj"])
    other = remember(stub, "hyrax other", scope="shared")
    stub.Delegate(pb.DelegateRequest(delegator_id="alice", delegate_id="bob",
                                     permission="read", tags=["proj"]))
    assert recall_ids(stub, "hyrax", agent_id="bob") == [tagged]
    stub.Delegate(pb.DelegateRequest(delegator_id="alice", delegate_id="carol",
                                     permission="read", memory_ids=[other]))
    assert recall_ids(stub, "hyrax", agent_id="carol") == [other]
    reply = stub.Delegate(pb.DelegateRequest(delegator_id="alice", delegate_id="dave",
                                             permission="read"))
    assert reply.delegation_id
    assert set(recall_ids(stub, "hyrax", agent_id="dave")) == {tagged, other}


def test_delegated_delete_permission(stub) -> None:
    mid = remember(stub, "delegated deletion", scope="shared")
    denied = stub.Forget(pb.ForgetRequest(memory_ids=[mid], agent_id="bob"))
    assert [e.error for e in denied.errors] == ["not found"]
    stub.Delegate(pb.DelegateRequest(delegator_id="alice", delegate_id="bob",
                                     permission="delete"))
    assert list(stub.Forget(pb.ForgetRequest(memory_ids=[mid], agent_id="bob")).forgotten) == [
        mid]


def test_max_depth_is_enforced(stub, brain: Brain, db: RawDatabase) -> None:
    mid = remember(stub, "depth test", scope="shared")
    stub.Delegate(pb.DelegateRequest(delegator_id="alice", delegate_id="bob",
                                     permission="read", max_depth=2))
    hop2 = stub.Delegate(pb.DelegateRequest(delegator_id="bob", delegate_id="carol",
                                            permission="read", memory_ids=[mid]))
    assert recall_ids(stub, "depth", agent_id="carol") == [mid]
    row = db.execute("SELECT depth, max_depth, owner FROM mnemo_delegations WHERE id = ?",
                     (hop2.delegation_id,)).fetchone()
    assert tuple(row) == (2, 2, "alice")
    error = rpc_error(stub.Delegate, pb.DelegateRequest(
        delegator_id="carol", delegate_id="dave", permission="read", memory_ids=[mid]))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "depth" in error.details()
    assert recall_ids(stub, "depth", agent_id="dave") == []
    assert_brain_valid(brain, stub)


def test_default_depth_forbids_redelegation(stub) -> None:
    mid = remember(stub, "single hop", scope="shared")
    stub.Delegate(pb.DelegateRequest(delegator_id="alice", delegate_id="bob", permission="admin"))
    error = rpc_error(stub.Delegate, pb.DelegateRequest(
        delegator_id="bob", delegate_id="carol", permission="read", memory_ids=[mid]))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED


def test_delegator_must_hold_the_permission(stub) -> None:
    mid = remember(stub, "held perms", scope="shared")
    stub.Delegate(pb.DelegateRequest(delegator_id="alice", delegate_id="bob",
                                     permission="read", max_depth=3))
    error = rpc_error(stub.Delegate, pb.DelegateRequest(
        delegator_id="bob", delegate_id="carol", permission="delete", memory_ids=[mid]))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    stranger = rpc_error(stub.Delegate, pb.DelegateRequest(
        delegator_id="mallory", delegate_id="carol", permission="read", memory_ids=[mid]))
    assert stranger.code() == grpc.StatusCode.NOT_FOUND


def test_redelegation_inherits_expiry(stub, clock) -> None:
    mid = remember(stub, "expiring chain", scope="shared")
    stub.Delegate(pb.DelegateRequest(delegator_id="alice", delegate_id="bob", permission="read",
                                     max_depth=2, expires_in_hours=1))
    stub.Delegate(pb.DelegateRequest(delegator_id="bob", delegate_id="carol", permission="read",
                                     memory_ids=[mid], expires_in_hours=100))
    clock.advance(hours=2)
    assert recall_ids(stub, "expiring", agent_id="carol") == []


@pytest.mark.parametrize(
    "fields",
    [
        {"delegate_id": "alice"},
        {"delegator_id": ""},
        {"delegate_id": ""},
        {"permission": ""},
        {"permission": "own"},
        {"max_depth": 0},
        {"max_depth": 11},
        {"expires_in_hours": 0},
        {"memory_ids": ["x"]},
        {"memory_ids": ["01900000-0000-7000-8000-000000000000"], "tags": ["t"]},
    ],
)
def test_delegate_invalid(stub, fields) -> None:
    request = {"delegator_id": "alice", "delegate_id": "bob", "permission": "read", **fields}
    error = rpc_error(stub.Delegate, pb.DelegateRequest(**request))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_delegate_unknown_memory(stub) -> None:
    error = rpc_error(stub.Delegate, pb.DelegateRequest(
        delegator_id="alice", delegate_id="bob", permission="read",
        memory_ids=["01900000-0000-7000-8000-000000000000"]))
    assert error.code() == grpc.StatusCode.NOT_FOUND

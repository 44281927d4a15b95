"""TrajectoryAudit (four signals) and ForgetSubject (GDPR erasure)."""

from __future__ import annotations

import json

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.grpc.support import assert_brain_valid, recall_ids, remember, rpc_error


def _audit(stub, **fields) -> tuple[pb.TrajectoryAuditResponse, dict]:
    reply = stub.TrajectoryAudit(pb.TrajectoryAuditRequest(**fields))
    return reply, json.loads(reply.report_json)


def test_empty_window_is_invalid(stub) -> None:
    error = rpc_error(stub.TrajectoryAudit, pb.TrajectoryAuditRequest(agent_id="nobody"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "No events" in error.details()


def test_healthy_trajectory_is_all_ok(stub) -> None:
    mid = remember(stub, "write then forget")
    stub.Forget(pb.ForgetRequest(memory_ids=[mid], agent_id="alice"))
    recall_ids(stub, "anything", agent_id="alice")
    reply, report = _audit(stub, agent_id="alice")
    assert reply.all_ok and reply.scope_label == "agent=alice"
    assert reply.event_count == 3
    assert report["capacity_driven_forgetting"]["strategy_histogram"] == {"soft_delete": 1}


def test_growth_signal(stub) -> None:
    for i in range(5):
        remember(stub, f"grow {i}")
    reply, report = _audit(stub, agent_id="alice", active_bank_ceiling=3)
    assert (reply.unregulated_growth.severity, reply.unregulated_growth.count) == ("warn", 2)
    assert report["unregulated_growth"]["peak_active_size"] == 5
    reply, _ = _audit(stub, agent_id="alice", active_bank_ceiling=2)
    assert reply.unregulated_growth.severity == "fail"
    assert not reply.all_ok


def test_semantic_revision_signal(stub) -> None:
    old = remember(stub, "price is 10", metadata='{"fact_id": "price"}')
    remember(stub, "price is 12", metadata='{"fact_id": "price"}')
    reply, report = _audit(stub, agent_id="alice")
    assert (reply.missing_semantic_revision.severity, reply.missing_semantic_revision.count) == (
        "warn", 1)
    assert report["missing_semantic_revision"]["stale_facts"][0]["stale_memory_ids"] == [old]
    stub.Forget(pb.ForgetRequest(memory_ids=[old], agent_id="alice"))
    reply, _ = _audit(stub, agent_id="alice")
    assert reply.missing_semantic_revision.severity == "ok"


def test_capacity_signal_counts_only_unnamed_strategies(stub) -> None:
    ids = [remember(stub, f"m{i}") for i in range(3)]
    for mid, strategy in zip(ids, ["decay", "archive", "hard_delete"], strict=True):
        stub.Forget(pb.ForgetRequest(memory_ids=[mid], strategy=strategy, agent_id="alice"))
    reply, report = _audit(stub, agent_id="alice")
    assert reply.capacity_driven_forgetting.severity == "ok"  # every forget names its strategy
    narrow, _ = _audit(stub, agent_id="alice", named_forget_strategies=["decay"])
    assert (narrow.capacity_driven_forgetting.severity,
            narrow.capacity_driven_forgetting.count) == ("warn", 2)
    assert report["capacity_driven_forgetting"]["strategy_histogram"] == {
        "archive": 1, "decay": 1, "hard_delete": 1}


def test_read_only_signal(stub) -> None:
    remember(stub, "writer writes", agent_id="writer", scope="public")
    recall_ids(stub, "writes", agent_id="reader")
    reply, report = _audit(stub)
    assert reply.scope_label == "all"
    assert report["read_only_retrieval"]["read_only_scopes"] == ["reader"]
    assert reply.read_only_retrieval.severity == "warn"
    writer, _ = _audit(stub, agent_id="writer")
    assert writer.read_only_retrieval.severity == "ok"
    reader, report = _audit(stub, agent_id="reader")
    assert reader.event_count == 1 and reader.read_only_retrieval.severity == "warn"
    assert report["read_only_retrieval"]["read_only_scopes"] == ["reader"]


def test_audit_invalid_arguments(stub) -> None:
    remember(stub, "x")
    for fields in ({"agent_id": "bad id"}, {"active_bank_ceiling": 0}, {"thread_id": "\t"}):
        error = rpc_error(stub.TrajectoryAudit, pb.TrajectoryAuditRequest(**fields))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize("strategy", ["redact", "hard_delete", "soft_delete"])
def test_forget_subject(stub, brain: Brain, strategy) -> None:
    a = remember(stub, "Jane Roe lives at 1 Main St", tags=["subject:jane"])
    b = remember(stub, "Jane Roe's phone is 555", agent_id="bob", tags=["subject:jane"])
    keep = remember(stub, "unrelated", tags=["subject:john"])
    reply = stub.ForgetSubject(pb.ForgetSubjectRequest(subject_id="jane", strategy=strategy))
    assert reply.strategy == strategy and reply.matched == 2
    assert set(reply.forgotten) == {a, b} and not reply.errors
    assert reply.cascaded_events == 3
    assert recall_ids(stub, "Jane", agent_id="alice") == []
    assert brain.store.get_memory_by_uuid(keep) is not None
    log = str([e.payload for e in brain.store.iter_events()]) + str(
        [e.subject_id for e in brain.store.iter_events()])
    assert "Jane" not in log and "jane" not in log
    if strategy == "redact":
        assert brain.store.get_memory_by_uuid(a).text == "[REDACTED]"
    assert_brain_valid(brain, stub)
    again = stub.ForgetSubject(pb.ForgetSubjectRequest(subject_id="jane", strategy=strategy))
    assert list(again.forgotten) == []
    assert again.matched == (0 if strategy == "hard_delete" else 2)


def test_forget_subject_default_and_agent_scope(stub, brain: Brain) -> None:
    mine = remember(stub, "about sam", tags=["subject:sam"])
    theirs = remember(stub, "bob about sam", agent_id="bob", tags=["subject:sam"])
    reply = stub.ForgetSubject(pb.ForgetSubjectRequest(subject_id="sam", agent_id="alice"))
    assert reply.strategy == "redact" and list(reply.forgotten) == [mine]
    assert [(e.id, e.error) for e in reply.errors] == [(theirs, "permission denied")]
    assert brain.store.get_memory_by_uuid(theirs).redacted_at is None


def test_forget_subject_errors(stub) -> None:
    for fields in ({"subject_id": ""}, {"subject_id": "x", "strategy": "decay"},
                   {"subject_id": "x", "agent_id": ""}):
        error = rpc_error(stub.ForgetSubject, pb.ForgetSubjectRequest(**fields))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    nothing = stub.ForgetSubject(pb.ForgetSubjectRequest(subject_id="nobody"))
    assert nothing.matched == 0 and nothing.cascaded_events == 0

"""Consolidate (topic documents) and Verify (memory hash chains)."""

from __future__ import annotations

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.grpc.support import assert_brain_valid, recall_ids, remember, rpc_error


def test_consolidate_versions_and_supersede(stub, brain: Brain) -> None:
    a = remember(stub, "the roof leaks in rain")
    b = remember(stub, "a roofer is booked for Monday", agent_id="bob", scope="public")
    first = stub.Consolidate(pb.ConsolidateRequest(memory_ids=[a, b], topic_name="roof",
                                                   agent_id="alice"))
    assert first.version == 1 and first.source_count == 2 and list(first.member_ids) == [a, b]
    assert not first.HasField("superseded_id")
    doc = brain.store.get_memory_by_uuid(first.topic_document_id)
    assert doc.content_hash == first.content_hash
    assert "the roof leaks in rain" in doc.text and doc.consolidation_state == "topic"
    assert doc.tags == ("topic:roof",)
    assert brain.store.topic_members(doc.id) == [a, b]
    second = stub.Consolidate(pb.ConsolidateRequest(
        memory_ids=[a], topic_name="roof", agent_id="alice", summary="Roof: fixed Monday.",
        supersede=first.topic_document_id))
    assert second.version == 2 and second.superseded_id == first.topic_document_id
    assert second.HasField("revision_event_id")
    old = brain.store.get_memory_by_uuid(first.topic_document_id)
    assert old.expired_reason == "superseded" and old.superseded_by is not None
    assert recall_ids(stub, "roof", agent_id="alice", tags=["topic:roof"]) == [
        second.topic_document_id]
    assert_brain_valid(brain, stub)


def test_consolidate_is_all_or_nothing(stub, brain: Brain) -> None:
    mine = remember(stub, "mine")
    hidden = remember(stub, "bob only", agent_id="bob")
    before = brain.store.counts()
    error = rpc_error(stub.Consolidate, pb.ConsolidateRequest(
        memory_ids=[mine, hidden], topic_name="t", agent_id="alice"))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert brain.store.counts() == before


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"memory_ids": []}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"topic_name": ""}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"memory_ids": ["nope"]}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"metadata": "{"}, grpc.StatusCode.INVALID_ARGUMENT),
        ({"supersede": "01900000-0000-7000-8000-000000000000"}, grpc.StatusCode.NOT_FOUND),
        ({"supersede": "MEMBER"}, grpc.StatusCode.INVALID_ARGUMENT),
    ],
)
def test_consolidate_errors(stub, fields, code) -> None:
    member = remember(stub, "member")
    fields = dict(fields)  # the parametrized dict is shared by both engines' runs
    if fields.get("supersede") == "MEMBER":
        fields["supersede"] = member
    request = {"memory_ids": [member], "topic_name": "t", "agent_id": "alice", **fields}
    assert rpc_error(stub.Consolidate, pb.ConsolidateRequest(**request)).code() == code


def test_superseding_someone_elses_topic_is_denied(stub) -> None:
    public = remember(stub, "public member", scope="public")
    doc = stub.Consolidate(pb.ConsolidateRequest(memory_ids=[public], topic_name="t",
                                                 agent_id="alice"))
    stub.Share(pb.ShareRequest(memory_id=doc.topic_document_id, target_agent_id="bob",
                               agent_id="alice"))
    error = rpc_error(stub.Consolidate, pb.ConsolidateRequest(
        memory_ids=[public], topic_name="t", agent_id="bob", supersede=doc.topic_document_id))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED


def test_verify_counts_and_scopes(stub) -> None:
    for i in range(3):
        remember(stub, f"a{i}")
    remember(stub, "thread memory", thread_id="t")
    remember(stub, "bob memory", agent_id="bob")
    everything = stub.Verify(pb.VerifyRequest())
    assert (everything.valid, everything.total_records, everything.verified_records) == (
        True, 5, 5)
    assert not everything.HasField("first_broken_at")
    alice = stub.Verify(pb.VerifyRequest(agent_id="alice"))
    assert alice.total_records == 4
    thread = stub.Verify(pb.VerifyRequest(agent_id="alice", thread_id="t"))
    assert thread.total_records == 1 and thread.valid


def test_verify_survives_soft_delete_redact_and_threads(stub, brain: Brain) -> None:
    ids = [remember(stub, f"n{i}", thread_id=f"t{i % 2}") for i in range(6)]
    stub.Forget(pb.ForgetRequest(memory_ids=[ids[1]], agent_id="alice"))
    stub.Forget(pb.ForgetRequest(memory_ids=[ids[2]], strategy="redact", agent_id="alice"))
    stub.Forget(pb.ForgetRequest(memory_ids=[ids[3]], strategy="hard_delete", agent_id="alice"))
    reply = stub.Verify(pb.VerifyRequest(agent_id="alice"))
    assert reply.valid and reply.total_records == 5 and reply.verified_records == 5
    assert_brain_valid(brain, stub)


def test_verify_catches_text_edited_behind_the_servers_back(stub, db) -> None:
    remember(stub, "first")
    target = remember(stub, "the amount is 100 EUR")
    remember(stub, "third")
    db.execute("UPDATE memories SET text = 'the amount is 900 EUR' WHERE uuid = ?", (target,))
    reply = stub.Verify(pb.VerifyRequest(agent_id="alice"))
    assert reply.valid is False
    assert reply.first_broken_at == target
    assert reply.total_records == 3 and reply.verified_records == 2
    assert "content" in reply.error_message


def test_verify_catches_rehashed_rows_and_deleted_rows(stub, db) -> None:
    from brainkeep.core.audit import memory_hash

    first = remember(stub, "first")
    target = remember(stub, "second")
    row = db.execute("SELECT created_at FROM memories WHERE uuid = ?", (target,)).fetchone()
    forged = memory_hash("forged", "alice", row[0])
    db.execute("UPDATE memories SET text = 'forged', content_hash = ? WHERE uuid = ?",
               (forged, target))
    reply = stub.Verify(pb.VerifyRequest())
    assert reply.first_broken_at == target and "event log" in reply.error_message
    db.execute("DELETE FROM memories WHERE uuid = ?", (target,))
    reply = stub.Verify(pb.VerifyRequest())
    assert reply.valid is False and reply.first_broken_at == target
    assert "no hard_delete" in reply.error_message
    assert first != target


def test_verify_catches_a_broken_link(stub, db) -> None:
    remember(stub, "first")
    second = remember(stub, "second")
    db.execute("UPDATE memories SET prev_hash = NULL WHERE uuid = ?", (second,))
    reply = stub.Verify(pb.VerifyRequest(agent_id="alice"))
    assert reply.valid is False and reply.first_broken_at == second


def test_verify_catches_a_tampered_event_log(stub, db) -> None:
    remember(stub, "first")
    db.execute("UPDATE events SET actor = 'mallory' WHERE seq = 1")
    reply = stub.Verify(pb.VerifyRequest())
    assert reply.valid is False and reply.first_broken_at == "event:1"


def test_verify_invalid_agent(stub) -> None:
    error = rpc_error(stub.Verify, pb.VerifyRequest(agent_id="bad agent"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT

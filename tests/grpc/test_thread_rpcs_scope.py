"""Replay, Verify and TrajectoryAudit report only what their reader may see.

These RPCs carry no ``org_id``: the reader is the request's agent in the
no-org tenant (docs/grpc.md). One agent's chain still spans its memories of
every org, so Verify walks all of them (no false break) but counts and names
only the visible ones; "all agents" means the whole no-org tenant.
"""

from __future__ import annotations

import json

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.brain_engines import RawDatabase
from tests.grpc.support import remember

HIDDEN = "(a record outside this reader's scope)"
T = {"thread_id": "t1", "agent_id": "alice"}


def _quarantine(db: RawDatabase, uuid: str) -> None:
    # No RPC quarantines (an ingestion filter would): set the column, as its write would.
    db.execute("UPDATE memories SET quarantined = 1 WHERE uuid = ?", (uuid,))


def _world(stub) -> dict[str, str]:
    """Alice's thread t1: no-org rows interleaved with acme rows (one chain per agent+thread)."""
    return {
        "mine": remember(stub, "alice private note", scope="private", **T),
        "acme": remember(stub, "alice acme plan", scope="public", org_id="acme", **T),
        "open": remember(stub, "alice public note", scope="public", **T),
        "acme2": remember(stub, "alice acme secret", scope="private", org_id="acme", **T),
    }


def test_replay_of_a_checkpoint_hides_other_orgs_and_quarantine(stub, db) -> None:
    ids = _world(stub)
    stub.Checkpoint(pb.CheckpointRequest(state_snapshot="{}", **T))
    clean = stub.Replay(pb.ReplayRequest(**T))
    assert [m.id for m in clean.memories] == [ids["mine"], ids["open"]]
    body = json.loads(clean.checkpoint_json)
    assert body["memory_refs"] == [ids["mine"], ids["open"]]
    assert clean.event_count == 2  # the two visible inserts
    # The chain runs through the acme rows; it is whole, and only what alice sees counts.
    assert clean.chain_valid and (clean.chain_total, clean.chain_verified) == (2, 2)
    for hidden in (ids["acme"], ids["acme2"]):
        assert hidden not in clean.checkpoint_json

    _quarantine(db, ids["open"])
    after = stub.Replay(pb.ReplayRequest(**T))
    assert [m.id for m in after.memories] == [ids["mine"]]
    assert ids["open"] not in after.checkpoint_json


def test_replay_as_of_hides_other_orgs_and_quarantine(stub, db, clock) -> None:
    ids = _world(stub)
    _quarantine(db, ids["mine"])
    clock.advance(seconds=1)
    replay = stub.Replay(pb.ReplayRequest(as_of=clock.now_ts(), **T))
    assert [m.id for m in replay.memories] == [ids["open"]]
    assert json.loads(replay.checkpoint_json)["memory_refs"] == [ids["open"]]
    assert replay.event_count == 1 and replay.chain_total == 1


def test_verify_counts_the_readers_memories_over_the_whole_chain(stub) -> None:
    ids = _world(stub)
    remember(stub, "bob acme note", agent_id="bob", org_id="acme")
    bob = remember(stub, "bob note", agent_id="bob", scope="private")
    alice = stub.Verify(pb.VerifyRequest(agent_id="alice"))
    assert (alice.valid, alice.total_records, alice.verified_records) == (True, 2, 2)
    thread = stub.Verify(pb.VerifyRequest(agent_id="alice", thread_id="t1"))
    assert (thread.valid, thread.total_records) == (True, 2)
    # All agents: every memory of the no-org tenant (bob's private one too), no acme row.
    everyone = stub.Verify(pb.VerifyRequest())
    assert (everyone.valid, everyone.total_records, everyone.verified_records) == (True, 3, 3)
    assert bob and ids


def test_verify_names_a_hidden_break_opaquely(stub, db) -> None:
    ids = _world(stub)
    db.execute("UPDATE memories SET text = 'tampered' WHERE uuid = ?", (ids["acme"],))
    for request in (pb.VerifyRequest(agent_id="alice"), pb.VerifyRequest()):
        reply = stub.Verify(request)
        assert reply.valid is False  # a real break stays a break, hidden or not
        assert reply.first_broken_at == HIDDEN
        assert ids["acme"] not in reply.first_broken_at + reply.error_message
        assert (reply.total_records, reply.verified_records) == (2, 2)
    # A break the reader may see is still named by its id.
    db.execute("UPDATE memories SET text = 'tampered' WHERE uuid = ?", (ids["mine"],))
    reply = stub.Verify(pb.VerifyRequest(agent_id="alice"))
    assert reply.first_broken_at == ids["mine"] and reply.verified_records == 1


def test_verify_never_confirms_a_hidden_vanished_row(stub, db) -> None:
    ids = _world(stub)
    db.execute("DELETE FROM memories WHERE uuid = ?", (ids["acme2"],))  # the chain's tail
    reply = stub.Verify(pb.VerifyRequest(agent_id="alice"))
    assert reply.valid is False and reply.first_broken_at == HIDDEN
    assert "no hard_delete" in reply.error_message and reply.total_records == 2


def _audit(stub, **fields) -> tuple[pb.TrajectoryAuditResponse, str]:
    reply = stub.TrajectoryAudit(pb.TrajectoryAuditRequest(fact_key="k", **fields))
    return reply, reply.report_json


def test_trajectory_audit_reports_only_visible_memories(stub, brain: Brain, db) -> None:
    meta = json.dumps({"k": "city"})
    mine = remember(stub, "alice lives in Paris", metadata=meta)
    remember(stub, "alice lives in Rome", metadata=meta, org_id="acme")
    remember(stub, "alice lives in Oslo", metadata=meta, org_id="acme")
    gone = remember(stub, "alice acme scratch", org_id="acme")
    own_gone = remember(stub, "alice scratch")
    stub.Forget(pb.ForgetRequest(memory_ids=[own_gone], strategy="hard_delete",
                                 agent_id="alice"))
    hidden = remember(stub, "alice quarantined", metadata=meta)
    _quarantine(db, hidden)
    # By-id RPCs cannot reach another org: remove the row directly. Its logged insert
    # then has no row to judge and is judged by its payload's tenant (acme: hidden).
    db.execute("DELETE FROM memories WHERE uuid = ?", (gone,))
    for fields in ({"agent_id": "alice"}, {}):
        reply, report = _audit(stub, **fields)
        # Visible: Paris's insert, the no-org scratch's insert and hard delete. The
        # quarantined row counts for the tenant-wide view only.
        assert reply.event_count == (3 if fields else 4), fields
        assert reply.missing_semantic_revision.count == (0 if fields else 1)
        data = json.loads(report)
        assert data["capacity_driven_forgetting"]["strategy_histogram"] == {"hard_delete": 1}
        # Live: Paris, then the scratch (2), deleted (1), then the quarantined row (2).
        assert data["unregulated_growth"]["peak_active_size"] == 2
        assert data["unregulated_growth"]["timeline"][-1][1] == (1 if fields else 2)
        assert mine in report or not data["missing_semantic_revision"]["stale_facts"]
        assert gone not in report and brain is not None

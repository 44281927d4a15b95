"""Reads leave the hash chain (issue 13): Recall writes the read log, TrajectoryAudit merges it."""

from __future__ import annotations

import json

import grpc

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.grpc.support import assert_brain_valid, recall_ids, remember, rpc_error


def _audit(stub, **fields) -> tuple[pb.TrajectoryAuditResponse, dict]:
    reply = stub.TrajectoryAudit(pb.TrajectoryAuditRequest(**fields))
    return reply, json.loads(reply.report_json)


def test_recalls_do_not_extend_the_chain(stub, brain: Brain) -> None:
    remember(stub, "otters hold hands", agent_id="writer", scope="public")
    remember(stub, "otters sleep afloat", agent_id="writer", scope="public")
    brain.mnemo.flush_reads()
    head = brain.store.chain_tip()
    count = brain.store.counts()["events"]
    for _ in range(25):
        assert recall_ids(stub, "otters", agent_id="reader")
    brain.mnemo.flush_reads()
    assert brain.store.chain_tip() == head  # neither a new event nor a new head
    assert brain.store.counts()["events"] == count
    reads = list(brain.store.iter_reads(None, "reader", None))
    assert len(reads) == 25 and all(len(r.memory_ids) == 2 for r in reads)
    assert all(brain.store.get_memory(mid).access_count == 25 for mid in reads[0].memory_ids)
    # TrajectoryAudit still sees every read, merged with the chain's events.
    reply, report = _audit(stub, agent_id="reader")
    assert reply.event_count == 25
    assert report["read_only_retrieval"]["read_only_scopes"] == ["reader"]
    everyone, _ = _audit(stub)
    assert everyone.event_count == 27  # two inserts + 25 reads
    assert_brain_valid(brain, stub)


def test_audit_never_counts_another_orgs_reads(stub, brain: Brain) -> None:
    remember(stub, "acme roadmap", agent_id="writer", scope="public", org_id="acme")
    remember(stub, "open roadmap", agent_id="writer", scope="public")
    assert recall_ids(stub, "roadmap", agent_id="spy", org_id="acme")
    assert recall_ids(stub, "roadmap", agent_id="local")
    brain.mnemo.flush_reads()
    assert [r.agent_id for r in brain.store.iter_reads("acme", None, None)] == ["spy"]
    assert [r.agent_id for r in brain.store.iter_reads(None, None, None)] == ["local"]
    # TrajectoryAudit reads the tenant without an org: acme's reader is not in it.
    reply, report = _audit(stub)
    assert report["read_only_retrieval"]["read_only_scopes"] == ["local"]
    assert reply.event_count == 2  # the no-org insert and the no-org read
    error = rpc_error(stub.TrajectoryAudit, pb.TrajectoryAuditRequest(agent_id="spy"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # no event of spy's in this tenant

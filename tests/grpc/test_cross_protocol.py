"""One brain, two protocols: gRPC memories and MCP facts see each other by visibility."""

from __future__ import annotations

import dataclasses

import pytest

from brainkeep.brain import Brain
from brainkeep.core.context import LOCAL, STDIO
from brainkeep.core.verify import verify_brain
from brainkeep.errors import NotFound, PermissionDenied
from brainkeep.grpc.generated import mnemo_pb2 as pb
from tests.grpc.support import assert_brain_valid, recall_ids, remember

STRATEGIES = ["auto", "hybrid", "lexical", "semantic", "exact", "graph", "reconstruct"]


@pytest.mark.parametrize("scope", ["public", "global"])
def test_open_grpc_memory_is_an_mcp_world_fact(stub, brain: Brain, scope) -> None:
    mid = remember(stub, f"The {scope} wiki moved to wiki.example.org", scope=scope)
    facts = brain.facts.list_facts(STDIO)
    assert [f.uuid for f in facts] == [mid]
    assert facts[0].visibility == "world" and facts[0].text.startswith(f"The {scope} wiki")
    assert [f.uuid for f in brain.facts.list_facts(STDIO, grep="wiki.example")] == [mid]
    assert brain.facts.find(facts[0].fact_id, STDIO).uuid == mid


@pytest.mark.parametrize("scope", ["private", "shared"])
def test_closed_grpc_memory_stays_hidden_from_remote_mcp(stub, brain: Brain, scope) -> None:
    remember(stub, "internal note", scope=scope)
    assert brain.facts.list_facts(STDIO) == []
    assert len(brain.facts.list_facts(LOCAL)) == 1  # the trusted local CLI sees everything


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_world_fact_reaches_every_grpc_agent(stub, brain: Brain, strategy) -> None:
    fact = brain.facts.remember("The espresso machine is on floor 3", "office tour", STDIO)
    hidden = brain.facts.remember("The safe code is 4711", "manager", LOCAL,
                                  visibility="private")
    for agent in ("alice", "default"):
        query = "espresso machine" if strategy == "exact" else "espresso machine floor"
        assert recall_ids(stub, query, strategy=strategy, agent_id=agent) == [fact.memory.uuid]
        query = "safe code" if strategy == "exact" else "safe code 4711"
        assert recall_ids(stub, query, strategy=strategy, agent_id=agent) == []
    assert hidden.memory.agent_id == ""  # no gRPC agent can ever claim this owner


def test_mcp_world_fact_fields_over_grpc(stub, brain: Brain) -> None:
    brain.facts.remember("Lunch is at noon", "team chat", STDIO)
    memory = stub.Recall(pb.RecallRequest(query="lunch")).memories[0]
    assert (memory.agent_id, memory.scope, memory.memory_type) == ("", "global", "semantic")


def test_mcp_forget_hides_the_fact_from_grpc(stub, brain: Brain) -> None:
    fact = brain.facts.remember("Parking is free on Sundays", "sign", STDIO).memory
    assert recall_ids(stub, "parking") == [fact.uuid]
    brain.facts.forget(fact.fact_id, STDIO)
    assert recall_ids(stub, "parking") == []


def test_both_protocols_share_one_event_log(stub, brain: Brain) -> None:
    fact = brain.facts.remember("Shared log fact", "test", STDIO).memory
    mid = remember(stub, "Shared log memory", scope="public")
    stub.Forget(pb.ForgetRequest(memory_ids=[mid], strategy="redact", agent_id="alice"))
    kinds = [(e.subject_id, e.kind) for e in brain.store.iter_events()
             if e.subject_type == "memory"]
    assert kinds == [(fact.uuid, "memory.insert"), (mid, "memory.insert"),
                     (mid, "memory.redact")]
    assert verify_brain(brain.store).valid
    assert_brain_valid(brain, stub)
    assert stub.Verify(pb.VerifyRequest()).total_records == 2


def test_mcp_recall_verb_ranks_open_grpc_memories(stub, brain: Brain) -> None:
    from brainkeep.core.verbs.recall import recall as mcp_recall

    public = remember(stub, "The wiki moved to wiki.example.org", scope="public")
    remember(stub, "The wiki admin password is hunter2")  # private: never reaches MCP
    facts = mcp_recall(brain.verbs, STDIO, query="wiki")["facts"]
    assert [f["fact"] for f in facts] == ["The wiki moved to wiki.example.org"]
    assert facts[0]["fact_id"] == str(brain.store.get_memory_by_uuid(public).id)
    assert facts[0]["visibility"] == "world" and facts[0]["provenance"] == "grpc:alice"


# -- one tenant and write rule across protocols (issue 9 reproductions) --------

ACME = dataclasses.replace(STDIO, org_id="acme")
ALICE = dataclasses.replace(STDIO, agent_id="alice")


def test_org_memory_never_leaks_to_another_tenant_over_mcp(stub, brain: Brain) -> None:
    mid = remember(stub, "Acme roadmap: ship the anvil in May", scope="public", org_id="acme")
    assert recall_ids(stub, "anvil roadmap", org_id="globex") == []
    for reader in (STDIO, LOCAL):  # the no-org tenant, remote or trusted
        assert brain.facts.list_facts(reader) == []
        assert brain.facts.list_facts(reader, query="anvil roadmap") == []
        with pytest.raises(NotFound):
            brain.facts.find(mid, reader)
    assert [f.uuid for f in brain.facts.list_facts(ACME, query="anvil roadmap")] == [mid]
    assert brain.facts.find(mid, ACME).uuid == mid


@pytest.mark.parametrize("scope", ["private", "shared", "public"])
def test_mcp_forget_needs_the_owner_or_a_grant(stub, brain: Brain, scope) -> None:
    mid = remember(stub, f"Alice's {scope} plan", scope=scope, agent_id="alice")
    expected = NotFound if scope != "public" else PermissionDenied
    with pytest.raises(expected):
        brain.facts.forget(mid, STDIO)
    assert brain.store.get_memory_by_uuid(mid).is_active(brain.clock.now_ts())
    assert brain.facts.forget(mid, ALICE).expired  # the owner, bound through a token


def test_quarantined_memory_is_invisible_to_remote_mcp(stub, brain: Brain, db) -> None:
    mid = remember(stub, "Quarantined claim about the vault", scope="public")
    db.execute("UPDATE memories SET quarantined = 1 WHERE uuid = ?", (mid,))
    db.commit()
    assert brain.facts.list_facts(STDIO, query="vault claim") == []
    with pytest.raises(NotFound):
        brain.facts.find(mid, STDIO)
    assert [f.uuid for f in brain.facts.list_facts(LOCAL)] == [mid]

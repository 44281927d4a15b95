"""Recall: strategies, fusion, filters, visibility, tenants, time, errors."""

from __future__ import annotations

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import start_grpc_server
from tests.grpc.support import recall_ids, remember, rpc_error

STRATEGIES = ["auto", "hybrid", "lexical", "semantic", "exact", "graph", "reconstruct"]
DEGRADED = "x-brainkeep-degraded"


def _trailing(call) -> dict[str, str]:
    return dict(call.trailing_metadata() or ())


def test_lexical_ranks_by_bm25(stub) -> None:
    strong = remember(stub, "kayak kayak kayak trip on the lake", scope="public")
    weak = remember(stub, "a long note that mentions a kayak once among many other words here",
                    scope="public")
    remember(stub, "nothing relevant", scope="public")
    reply, call = stub.Recall.with_call(pb.RecallRequest(query="kayak", strategy="lexical",
                                                         agent_id="bob", explain=True))
    assert [m.id for m in reply.memories] == [strong, weak]
    assert reply.total == 2
    assert reply.memories[0].score > reply.memories[1].score > 0
    assert reply.memories[0].score_breakdown.bm25 == pytest.approx(reply.memories[0].score)
    assert DEGRADED not in _trailing(call)


def test_exact_is_a_case_insensitive_substring(stub) -> None:
    hit = remember(stub, "The API key rotates on Fridays", scope="public")
    remember(stub, "Friday is a day", scope="public")
    assert recall_ids(stub, "key ROTATES", strategy="exact", agent_id="x") == [hit]
    assert recall_ids(stub, "rotates on mondays", strategy="exact", agent_id="x") == []


@pytest.mark.parametrize("strategy", ["hybrid", "auto", "reconstruct"])
def test_hybrid_family_is_degraded_without_embeddings(stub, strategy) -> None:
    hit = remember(stub, "penguins live in the south", scope="public")
    reply, call = stub.Recall.with_call(pb.RecallRequest(query="penguins", strategy=strategy))
    assert [m.id for m in reply.memories] == [hit]
    assert "no-embedding-provider" in _trailing(call)[DEGRADED]


def test_semantic_falls_back_to_lexical_with_degraded_metadata(stub) -> None:
    hit = remember(stub, "the cat sat on the mat", scope="public")
    reply, call = stub.Recall.with_call(pb.RecallRequest(query="cat", strategy="semantic"))
    assert [m.id for m in reply.memories] == [hit]
    assert "lexical" in _trailing(call)[DEGRADED]


class FakeVectors:
    """A scripted vector arm (our own seam): returns the pairs it was given."""

    def __init__(self) -> None:
        self.hits: list[tuple[int, float]] = []
        self.queries: list[str] = []

    def search_memories(self, query: str, memory_ids_filter, limit: int, *, scope=None):
        self.queries.append(query)
        return self.hits[:limit]


def test_semantic_and_hybrid_use_the_vector_arm_when_present(make_brain) -> None:
    vectors = FakeVectors()
    brain: Brain = make_brain(memory_vectors=vectors)
    handle = start_grpc_server(brain, port=0)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{handle.port}") as channel:
            stub = pb_grpc.MnemoServiceStub(channel)
            feline = remember(stub, "a small feline purrs", scope="public")
            hidden = remember(stub, "private cat thoughts", agent_id="carol")
            words = remember(stub, "cat food on sale", scope="public")
            get = brain.store.get_memory_by_uuid
            vectors.hits = [(get(hidden).id, 0.99), (get(feline).id, 0.91)]
            reply, call = stub.Recall.with_call(pb.RecallRequest(
                query="cat", strategy="semantic", agent_id="bob", explain=True))
            # carol's private memory is filtered out even though the arm returned it
            assert [m.id for m in reply.memories] == [feline]
            assert reply.memories[0].score_breakdown.vector == pytest.approx(0.91)
            assert DEGRADED not in _trailing(call)
            reply, call = stub.Recall.with_call(pb.RecallRequest(
                query="cat", agent_id="bob", explain=True))
            assert {m.id for m in reply.memories} == {feline, words}
            by_id = {m.id: m.score_breakdown for m in reply.memories}
            assert by_id[feline].vector > 0 and by_id[feline].bm25 == 0
            assert by_id[words].bm25 > 0 and by_id[words].vector == 0
            assert DEGRADED not in _trailing(call)
            assert vectors.queries == ["cat", "cat"]
    finally:
        handle.stop(1.0)


def test_hybrid_weights_and_explain(stub, clock) -> None:
    old = remember(stub, "river river river boat", scope="public")
    clock.advance(seconds=5)
    new = remember(stub, "a boat on a wide river with a long description of it", scope="public")
    reply = stub.Recall(pb.RecallRequest(query="river", explain=True))
    assert [m.id for m in reply.memories] == [old, new]  # bm25 dominates by default
    first = reply.memories[0].score_breakdown
    assert first.rrf_rank == 1
    assert first.bm25 == pytest.approx(1.0 / 61) and first.recency == pytest.approx(0.25 / 62)
    recency_only = stub.Recall(pb.RecallRequest(
        query="river", hybrid_weights=[0, 0, 0, 1], rrf_k=1, explain=True))
    assert [m.id for m in recency_only.memories] == [new, old]
    assert recency_only.memories[0].score == pytest.approx(1 / 2)


def test_graph_brings_related_memories(stub) -> None:
    base = remember(stub, "project zephyr kickoff", scope="public")
    linked = remember(stub, "budget approved", scope="public", related_to=[base])
    remember(stub, "unrelated", scope="public")
    ids = recall_ids(stub, "zephyr", strategy="graph")
    assert ids == [base, linked]


def test_reconstruct_returns_a_reconstruction(stub) -> None:
    base = remember(stub, "Orion launch moved to May", scope="public")
    linked = remember(stub, "marketing plan", scope="public", related_to=[base])
    reply = stub.Recall(pb.RecallRequest(query="orion launch", strategy="reconstruct"))
    r = reply.reconstruction
    assert reply.HasField("reconstruction")
    assert r.cue == "orion launch"
    assert list(r.source_ids) == [base]
    assert list(r.linked_context_ids) == [linked]
    assert "Orion launch moved to May" in r.summary
    assert r.confidence == pytest.approx(1.0)
    assert not stub.Recall(pb.RecallRequest(query="orion")).HasField("reconstruction")


def test_visibility_private_shared_public(stub) -> None:
    mine = remember(stub, "alpha private", agent_id="alice")
    shared = remember(stub, "alpha shared", agent_id="alice", scope="shared")
    public = remember(stub, "alpha public", agent_id="alice", scope="public")
    assert set(recall_ids(stub, "alpha", agent_id="alice")) == {mine, shared, public}
    assert recall_ids(stub, "alpha", agent_id="bob") == [public]
    stub.Share(pb.ShareRequest(memory_id=shared, target_agent_id="bob", agent_id="alice"))
    assert set(recall_ids(stub, "alpha", agent_id="bob")) == {shared, public}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_org_isolates_every_strategy(stub, strategy) -> None:
    acme = remember(stub, "quarterly secret numbers", agent_id="a", scope="public",
                    org_id="acme")
    seed = remember(stub, "quarterly plan", agent_id="a", scope="public", org_id="globex")
    remember(stub, "related numbers", agent_id="a", scope="public", org_id="acme",
             related_to=[seed])
    ask = {"query": "quarterly", "strategy": strategy, "agent_id": "b"}
    in_acme = recall_ids(stub, org_id="acme", **ask)
    in_globex = recall_ids(stub, org_id="globex", **ask)
    no_org = recall_ids(stub, **ask)
    assert acme in in_acme and acme not in in_globex and acme not in no_org
    assert seed in in_globex and seed not in in_acme
    assert no_org == []


def test_as_of_sees_since_deleted_memories(stub, clock) -> None:
    gone = remember(stub, "ephemeral orchid fact", scope="public")
    clock.advance(seconds=10)
    before = clock.now_ts()
    clock.advance(seconds=10)
    stub.Forget(pb.ForgetRequest(memory_ids=[gone], agent_id="alice"))
    later = remember(stub, "orchid bloom", scope="public")
    assert recall_ids(stub, "orchid", strategy="lexical") == [later]
    for strategy in ("lexical", "hybrid", "exact"):
        query = "orchid fact" if strategy == "exact" else "orchid"
        assert recall_ids(stub, query, strategy=strategy, as_of=before) == [gone]


def test_expired_and_quarantined_never_returned(stub, clock, db) -> None:
    short = remember(stub, "volatile heron note", scope="public", ttl_seconds=5)
    flagged = remember(stub, "heron quarantined", scope="public")
    kept = remember(stub, "heron kept", scope="public")
    db.execute("UPDATE memories SET quarantined = 1 WHERE uuid = ?", (flagged,))
    assert set(recall_ids(stub, "heron")) == {short, kept}
    clock.advance(seconds=6)
    for strategy in STRATEGIES:
        assert recall_ids(stub, "heron", strategy=strategy) == [kept]


def test_filters_compose(stub) -> None:
    a = remember(stub, "lynx one", scope="public", memory_type="semantic", importance=0.9,
                 tags=["cats"])
    b = remember(stub, "lynx two", scope="public", importance=0.2, tags=["wild"])
    c = remember(stub, "lynx three", agent_id="alice", tags=["cats", "wild"])
    ask = {"query": "lynx", "agent_id": "alice"}
    assert recall_ids(stub, memory_type="semantic", **ask) == [a]
    assert set(recall_ids(stub, scope="public", **ask)) == {a, b}
    assert set(recall_ids(stub, min_importance=0.6, **ask)) == {a}
    assert set(recall_ids(stub, tags=["wild"], **ask)) == {b, c}
    assert set(recall_ids(stub, tags=["cats", "nope"], **ask)) == {a, c}


def test_access_count_increments(stub, brain: Brain) -> None:
    mid = remember(stub, "counted memory", scope="public")
    first = stub.Recall(pb.RecallRequest(query="counted")).memories[0]
    second = stub.Recall(pb.RecallRequest(query="counted")).memories[0]
    assert (first.access_count, second.access_count) == (1, 2)
    assert brain.mnemo.flush_reads() in (0, 1, 2)  # the background flush may have run
    assert brain.store.get_memory_by_uuid(mid).access_count == 2
    reads = list(brain.store.iter_reads(None, "default", None))
    assert [(r.strategy, r.memory_ids, r.surface) for r in reads] == [
        ("hybrid", (brain.store.get_memory_by_uuid(mid).id,), "grpc")] * 2
    assert brain.store.events_for("reads", "recall-batch") == []  # not in the chain


def test_limit_default_and_cap(stub) -> None:
    for i in range(105):
        remember(stub, f"walrus fact number {i}", scope="public")
    assert len(recall_ids(stub, "walrus", strategy="lexical")) == 10
    assert len(recall_ids(stub, "walrus", strategy="lexical", limit=500)) == 100
    assert len(recall_ids(stub, "walrus", limit=3)) == 3


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"query": ""}, "query"),
        ({"query": "  "}, "query"),
        ({"strategy": "psychic"}, "strategy"),
        ({"limit": 0}, "limit"),
        ({"hybrid_weights": [1, 1, 1]}, "hybrid_weights"),
        ({"hybrid_weights": [1, -1, 1, 1]}, "hybrid_weights"),
        ({"hybrid_weights": [0, 0, 0, 0]}, "hybrid_weights"),
        ({"rrf_k": 0}, "rrf_k"),
        ({"as_of": "yesterday"}, "as_of"),
        ({"memory_type": "dream"}, "memory_type"),
        ({"scope": "team"}, "scope"),
        ({"min_importance": 2}, "min_importance"),
        ({"agent_id": "no spaces"}, "agent_id"),
    ],
)
def test_invalid_recall(stub, fields, needle) -> None:
    request = {"query": "anything", **fields}
    error = rpc_error(stub.Recall, pb.RecallRequest(**request))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert needle in error.details()

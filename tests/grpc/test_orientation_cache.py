"""Recall's orientation cache (``RecallRequest.orientation_cache``, Mnemo v0.4.8), both engines.

The hidden field: a per-namespace context map that recall maintains in the
brain (shared by every server on it), read through the caller's read scope
and rendered within ``token_budget``.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import grpc
import pytest

from brainkeep.brain import Brain
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import start_grpc_server
from tests.brain_engines import RawDatabase
from tests.grpc.support import remember, rpc_error

FACTS = (
    "Alice Chen runs the billing service; DATABASE_URL=postgres://db/billing and port: 5432",
    "Alice Chen owns the schema users(id, email, created_at) for billing",
    "The billing job config is {\"retries\": 3, \"queue\": \"billing\"} on PostgreSQL",
)


def _recall(stub: pb_grpc.MnemoServiceStub, query: str = "billing", *,
            agent: str = "alice", org: str | None = None, strategy: str = "hybrid",
            **cache: Any) -> pb.RecallResponse:
    request = pb.RecallRequest(query=query, agent_id=agent, strategy=strategy,
                               orientation_cache=pb.OrientationCacheRequest(**cache))
    if org is not None:
        request.org_id = org
    return stub.Recall(request)


def _map(reply: pb.RecallResponse) -> pb.OrientationCacheResponse:
    assert reply.HasField("orientation_cache")
    return reply.orientation_cache


def _entries(m: pb.OrientationCacheResponse) -> dict[str, dict[tuple[str, str], int]]:
    return {kind: {(e.key, e.value): e.freq for e in getattr(m, kind)}
            for kind in ("entities", "constants", "schemas")}


def _line_tokens(e: pb.OrientationEntry) -> int:
    return math.ceil(len(f"{e.key}: {e.value} ({e.freq})") / 4)


def _all(m: pb.OrientationCacheResponse) -> list[pb.OrientationEntry]:
    return [*m.entities, *m.constants, *m.schemas]


def _seed(stub: pb_grpc.MnemoServiceStub, **fields: Any) -> list[str]:
    return [remember(stub, text, scope="public", **fields) for text in FACTS]


def test_a_recall_without_the_field_touches_no_map(stub, db: RawDatabase) -> None:
    _seed(stub)
    reply = stub.Recall(pb.RecallRequest(query="billing", agent_id="alice"))
    assert len(reply.memories) == 3 and not reply.HasField("orientation_cache")
    assert db.execute("SELECT COUNT(*) FROM orientation_namespaces").fetchone()[0] == 0


def test_recall_maintains_entities_constants_and_schemas_with_frequencies(stub) -> None:
    _seed(stub)
    first = _map(_recall(stub))
    assert (first.namespace, first.budget, first.hit_count) == ("alice", 512, 1)
    got = _entries(first)
    assert got["entities"][("Alice Chen", "name")] == 2
    assert got["entities"][("PostgreSQL", "identifier")] == 1
    assert got["constants"][("DATABASE_URL", "postgres://db/billing")] == 1
    assert got["constants"][("port", "5432")] == 1
    assert got["schemas"][("users", "id, email, created_at")] == 1
    assert got["schemas"][("json", "queue, retries")] == 1
    # A second recall returning two of the memories counts them again.
    second = _map(_recall(stub, "Alice Chen", strategy="lexical"))
    assert second.hit_count == 2
    assert _entries(second)["entities"][("Alice Chen", "name")] == 4
    assert _entries(second)["constants"][("port", "5432")] == 2
    # Each list is most frequent first; each estimate is its line's char/4.
    for kind in ("entities", "constants", "schemas"):
        freqs = [e.freq for e in getattr(second, kind)]
        assert freqs == sorted(freqs, reverse=True)
    assert all(e.token_estimate == _line_tokens(e) for e in _all(second))
    assert second.token_estimate == sum(e.token_estimate for e in _all(second)) <= 512


def test_namespace_defaults_to_org_and_agent_and_a_label_is_its_own_map(stub) -> None:
    _seed(stub, org_id="acme")
    assert _map(_recall(stub, org="acme")).namespace == "acme/alice"
    labelled = _map(_recall(stub, org="acme", namespace="billing-team"))
    assert (labelled.namespace, labelled.hit_count) == ("billing-team", 1)
    assert _map(_recall(stub, org="acme")).hit_count == 2  # the default map, not the label's
    error = rpc_error(_recall, stub, namespace="   ")
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "namespace" in (error.details() or "")


def _stored(db: RawDatabase) -> tuple[Any, ...]:
    return (db.execute("SELECT namespace_id, kind, entry_key, entry_value, memory_id, hits "
                       "FROM orientation_entries ORDER BY 1, 2, 3, 4, 5").fetchall(),
            db.execute("SELECT name, hit_count FROM orientation_namespaces "
                       "ORDER BY name").fetchall())


def test_distill_false_is_read_only_inspection(stub, db: RawDatabase) -> None:
    _seed(stub)
    remember(stub, "Bob Stone keeps the TIMEOUT=30s for the deploy", scope="public")
    built = _map(_recall(stub))
    before = _stored(db)
    # Another query, whose results would add Bob Stone and TIMEOUT if distilled.
    for _ in range(3):
        looked = _map(_recall(stub, "deploy", distill=False))
        assert looked == built
    assert _stored(db) == before
    assert ("Bob Stone", "name") not in _entries(looked)["entities"]
    # Inspecting a namespace no recall has built gives an empty map, and creates nothing.
    empty = _map(_recall(stub, namespace="never-built", distill=False))
    assert (empty.hit_count, _all(empty), empty.token_estimate) == (0, [], 0)
    assert _stored(db) == before


def test_include_in_response_false_updates_but_returns_nothing(stub) -> None:
    _seed(stub)
    for _ in range(2):
        reply = _recall(stub, include_in_response=False)
        assert len(reply.memories) == 3 and not reply.HasField("orientation_cache")
    looked = _map(_recall(stub, distill=False))
    assert looked.hit_count == 2
    assert _entries(looked)["entities"][("Alice Chen", "name")] == 4
    # Neither updating nor returning: nothing at all happens.
    reply = _recall(stub, include_in_response=False, distill=False)
    assert not reply.HasField("orientation_cache")
    assert _map(_recall(stub, distill=False)).hit_count == 2


@pytest.mark.parametrize("budget", [0, 1, 2, 3, 5, 8, 13, 21, 40])
def test_tiny_budgets_are_respected(stub, budget: int) -> None:
    _seed(stub)
    _recall(stub, include_in_response=False)
    m = _map(_recall(stub, token_budget=budget, distill=False))
    assert m.budget == budget
    assert m.token_estimate == sum(e.token_estimate for e in _all(m)) <= budget
    assert m.hit_count == 1
    full = _map(_recall(stub, distill=False))
    # Whatever fits is taken: an entry left out would not have fitted beside the others.
    left = budget - m.token_estimate
    shown = {(e.key, e.value) for e in _all(m)}
    assert all(e.token_estimate > left for e in _all(full) if (e.key, e.value) not in shown)


def test_budget_above_the_cap_is_clamped(stub) -> None:
    _seed(stub)
    m = _map(_recall(stub, token_budget=10**6))
    assert m.budget == 8192 and m.token_estimate <= 8192


def test_another_agent_or_org_never_sees_entries_of_rows_it_cannot_read(stub) -> None:
    secret = "Zed Quill keeps the vault key VAULT_KEY=s3cr3t-7 in billing"
    remember(stub, secret, scope="private", org_id="acme")
    remember(stub, "Alice Chen runs billing", scope="public", org_id="acme")
    owner = _entries(_map(_recall(stub, org="acme", namespace="shared")))
    assert ("Zed Quill", "name") in owner["entities"]
    assert ("VAULT_KEY", "s3cr3t-7") in owner["constants"]
    # Bob, same org, same label: only what came from rows he may read.
    bob = _map(_recall(stub, agent="bob", org="acme", namespace="shared", distill=False))
    assert ("Alice Chen", "name") in _entries(bob)["entities"]
    assert "Zed Quill" not in str(bob) and "s3cr3t" not in str(bob)
    # Bob's own default namespace, and Alice's default one named by Bob: nothing secret.
    assert _map(_recall(stub, agent="bob", org="acme")).namespace == "acme/bob"
    _recall(stub, org="acme")  # Alice builds her default map
    peek = _map(_recall(stub, agent="bob", org="acme", namespace="acme/alice", distill=False))
    assert "Zed Quill" not in str(peek) and "s3cr3t" not in str(peek)
    # Another org under the same label has a map of its own: empty, nothing of acme's.
    other = _map(_recall(stub, agent="alice", org="globex", namespace="shared", distill=False))
    assert (other.hit_count, _all(other)) == (0, [])


def test_a_forgotten_memory_leaves_the_map(stub) -> None:
    ids = _seed(stub)
    assert ("users", "id, email, created_at") in _entries(_map(_recall(stub)))["schemas"]
    reply = stub.Forget(pb.ForgetRequest(memory_ids=[ids[1]], agent_id="alice"))
    assert list(reply.forgotten) == [ids[1]]
    after = _entries(_map(_recall(stub, distill=False)))
    assert ("users", "id, email, created_at") not in after["schemas"]
    assert after["entities"][("Alice Chen", "name")] == 1  # only the live row's count


def test_two_servers_on_one_brain_share_the_map(make_brain: Any, brain: Brain) -> None:
    second = make_brain()
    handles = [start_grpc_server(b, port=0) for b in (brain, second)]
    channels = [grpc.insecure_channel(f"127.0.0.1:{h.port}") for h in handles]
    try:
        one, two = (pb_grpc.MnemoServiceStub(c) for c in channels)
        _seed(one)
        _recall(one, namespace="fleet", include_in_response=False)
        seen = _map(_recall(two, namespace="fleet", distill=False))
        assert seen.hit_count == 1
        assert _entries(seen)["entities"][("Alice Chen", "name")] == 2
        rounds = 8

        def hammer(stub: pb_grpc.MnemoServiceStub) -> None:
            for _ in range(rounds):
                _recall(stub, "Alice Chen", strategy="lexical", namespace="fleet",
                        include_in_response=False)

        threads = [threading.Thread(target=hammer, args=(s,)) for s in (one, two, one, two)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        final = [_map(_recall(s, namespace="fleet", distill=False)) for s in (one, two)]
        assert final[0] == final[1]
        assert final[0].hit_count == 1 + 4 * rounds
        # Two memories name Alice Chen: each concurrent recall returned both.
        assert _entries(final[0])["entities"][("Alice Chen", "name")] == 2 + 2 * 4 * rounds
    finally:
        for c in channels:
            c.close()
        for h in handles:
            h.stop(grace=1.0)

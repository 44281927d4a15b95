"""Issue 9: one verifier, one payload per memory event kind, chain links by the engine.

Everything runs on a real SQLite file; tampering goes through a second,
independent sqlite3 connection, as a user with the sqlite3 shell would.
"""

from __future__ import annotations

import inspect
import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from click.testing import Result

from brainkeep.brain import Brain
from brainkeep.core.context import Caller
from brainkeep.core.memory.consolidate import ConsolidateInput
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.ports.store import Store
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import start_grpc_server

RunCli = Callable[..., Result]
# A trusted local caller of the acme tenant: sees the public gRPC memories below.
ACME_LOCAL = Caller(remote=False, client_id="local", transport="cli", org_id="acme")


def sql(home: Path, statement: str, params: tuple[Any, ...] = ()) -> list[Any]:
    conn = sqlite3.connect(home / "brain.db")
    try:
        with conn:
            return conn.execute(statement, params).fetchall()
    finally:
        conn.close()


def memory_events(brain: Brain, kind: str) -> list[dict[str, Any]]:
    return [e.payload for e in brain.store.iter_events() if e.kind == kind]


@pytest.fixture
def stub(brain: Brain) -> Iterator[pb_grpc.MnemoServiceStub]:
    handle = start_grpc_server(brain, port=0)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{handle.port}") as channel:
            yield pb_grpc.MnemoServiceStub(channel)
    finally:
        handle.stop(grace=1.0)


# -- the engine assigns memory chain links ------------------------------------------------


def test_store_protocol_leaves_chain_links_to_the_engine() -> None:
    assert "prev_hash" not in inspect.signature(Store.insert_memory).parameters
    assert not hasattr(Store, "last_chain_hash")
    doc = inspect.getdoc(Store) or ""
    assert "writes are serialized" in " ".join(doc.split())


def test_insert_memory_links_each_chain_itself(brain: Brain) -> None:
    first = brain.mnemo.remember(RememberInput(content="one", agent_id="alice"))
    other = brain.mnemo.remember(RememberInput(content="two", agent_id="alice", thread_id="t"))
    second = brain.mnemo.remember(RememberInput(content="three", agent_id="alice"))
    assert first.prev_hash is None and other.prev_hash is None  # threads are separate chains
    assert second.prev_hash == first.content_hash
    inserted = {p["id"]: p for p in memory_events(brain, "memory.insert")}
    assert inserted[second.id]["prev_hash"] == first.content_hash


# -- `brainkeep verify` checks memory chain links -----------------------------------------


@pytest.mark.parametrize("link", ["NULL", "first"])
def test_cli_verify_reports_a_tampered_memory_prev_hash(
    run_cli: RunCli, home: Path, link: str
) -> None:
    assert run_cli("init").exit_code == 0
    for i in range(3):
        assert run_cli("remember", f"fact {i}", "-p", "test").exit_code == 0
    assert run_cli("verify", "--json").exit_code == 0
    (uuid,), = sql(home, "SELECT uuid FROM memories WHERE text = 'fact 2'")
    if link == "NULL":
        sql(home, "UPDATE memories SET prev_hash = NULL WHERE uuid = ?", (uuid,))
    else:  # skip a link: points at a real hash, but not at its predecessor
        sql(home, "UPDATE memories SET prev_hash = (SELECT content_hash FROM memories "
                  "WHERE text = 'fact 0') WHERE uuid = ?", (uuid,))

    # No newer event names the edited row: --since-verified does not see it
    # (docs/audit.md), the default full walk does.
    assert run_cli("verify", "--since-verified", "--json").exit_code == 0
    result = run_cli("verify", "--json")
    assert result.exit_code == 1
    broken = json.loads(result.stdout)["first_broken"]
    assert (broken["kind"], broken["id"]) == ("memory", uuid)
    assert "prev_hash" in broken["reason"]
    # The break forgot every proved head: even --since-verified walks everything again.
    assert run_cli("verify", "--since-verified").stdout.startswith(f"INVALID: memory {uuid}")


# -- one payload per memory event kind ------------------------------------------------------


def test_mcp_forget_event_carries_owner_and_org_like_a_grpc_one(brain: Brain) -> None:
    kept = brain.mnemo.remember(RememberInput(content="the roof leaks", agent_id="alice",
                                              org_id="acme", scope="public", thread_id="t1"))
    target = brain.mnemo.remember(RememberInput(content="the gate is blue", agent_id="alice",
                                                org_id="acme", scope="public", thread_id="t1"))
    brain.facts.forget(target.uuid, ACME_LOCAL, reason="wrong")  # the MCP `forget` verb
    (mcp,) = memory_events(brain, "memory.expire")
    assert mcp["owner"] == "alice" and mcp["org_id"] == "acme" and mcp["thread_id"] == "t1"
    assert mcp["agent_id"] == "local"  # who acted
    assert mcp["reason"] == "wrong" and mcp["content_hash"] == target.content_hash

    # The same kind written by the gRPC side (a superseded topic document).
    first = brain.mnemo.consolidate(ConsolidateInput(memory_ids=(kept.uuid,), topic_name="roof",
                                                     agent_id="alice"))
    brain.mnemo.consolidate(ConsolidateInput(memory_ids=(kept.uuid,), topic_name="roof",
                                             agent_id="alice", supersede=first.memory.uuid))
    _, grpc_side = memory_events(brain, "memory.expire")
    assert grpc_side["owner"] == "alice" and grpc_side["org_id"] == "acme"
    assert set(mcp) == set(grpc_side)


def test_memory_insert_has_one_payload_whoever_wrote_it(brain: Brain) -> None:
    brain.facts.remember("Alice prefers tea", "test", ACME_LOCAL)
    brain.mnemo.remember(RememberInput(content="Alice prefers tea", agent_id="alice"))
    mcp, grpc_side = memory_events(brain, "memory.insert")
    assert set(mcp) == set(grpc_side)
    assert {"owner", "org_id", "agent_id", "thread_id", "prev_hash", "content_hash"} <= set(mcp)


def test_trajectory_audit_counts_an_mcp_forget_for_the_owner(brain: Brain) -> None:
    # No org: TrajectoryAudit carries no org_id, so it reads the no-org tenant only.
    memory = brain.mnemo.remember(RememberInput(content="temporary", agent_id="alice",
                                                scope="public"))
    brain.facts.forget(memory.uuid, Caller(remote=False, client_id="local", transport="cli"))
    report = brain.mnemo.trajectory_audit(agent_id="alice", thread_id=None,
                                          active_bank_ceiling=None, fact_key=None,
                                          named_forget_strategies=())
    assert report.event_count == 2  # the insert and the MCP expiry
    assert report.report["unregulated_growth"]["timeline"][-1][1] == 0  # nothing live


# -- gRPC Verify and `brainkeep verify` agree ---------------------------------------------


def fill(brain: Brain, stub: pb_grpc.MnemoServiceStub) -> list[str]:
    ids = [stub.Remember(pb.RememberRequest(content=f"alice note {i}", agent_id="alice")).id
           for i in range(3)]
    stub.Remember(pb.RememberRequest(content="bob note", agent_id="bob", thread_id="t1"))
    brain.facts.remember("Alice prefers tea", "test", ACME_LOCAL)
    brain.pages.put_page("people/alice", "# Alice\n\nLikes tea.\n")
    return ids


TAMPERS = {
    "memory prev_hash": "UPDATE memories SET prev_hash = NULL WHERE uuid = :target",
    "memory text": "UPDATE memories SET text = 'forged' WHERE uuid = :target",
    "memory row removed": "DELETE FROM memories WHERE uuid = :target",
    "event": "UPDATE events SET actor = 'mallory' WHERE seq = 2",
    "page": "UPDATE pages SET content = '# Alice\n\nLikes coffee.\n'",
}


def grpc_label(broken: dict[str, Any]) -> str:
    """The `first_broken_at` gRPC uses for the CLI's `first_broken` record."""
    if broken["kind"] == "memory":
        return str(broken["id"])
    return f"{broken['kind']}:{broken['slug'] or broken['id']}"


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_grpc_verify_and_cli_verify_agree_on_a_tampered_brain(
    brain: Brain, stub: pb_grpc.MnemoServiceStub, run_cli: RunCli, home: Path, tamper: str
) -> None:
    alice = fill(brain, stub)
    target = alice[1]
    clean = stub.Verify(pb.VerifyRequest())
    assert clean.valid and json.loads(run_cli("verify", "--json").stdout)["valid"]

    conn = sqlite3.connect(home / "brain.db")
    try:
        with conn:
            conn.execute(TAMPERS[tamper], {"target": target} if ":target" in TAMPERS[tamper]
                         else {})
    finally:
        conn.close()

    cli = json.loads(run_cli("verify", "--full", "--json").stdout)
    reply = stub.Verify(pb.VerifyRequest())
    assert cli["valid"] is False and reply.valid is False
    assert reply.first_broken_at == grpc_label(cli["first_broken"])
    assert reply.error_message == cli["first_broken"]["reason"]
    if tamper.startswith("memory"):
        # A vanished row first breaks its successor's link (no hard delete bridges it).
        named = alice[2] if tamper == "memory row removed" else target
        assert reply.first_broken_at == named
        scoped = stub.Verify(pb.VerifyRequest(agent_id="alice"))
        assert scoped.valid is False and scoped.first_broken_at == named
        assert stub.Verify(pb.VerifyRequest(agent_id="bob")).valid  # other chains stand

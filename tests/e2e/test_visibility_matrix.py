"""The visibility rules, every row through every surface (docs/data-model.md, "Visibility").

One brain in a real temp home holds memories across tenants (no org, acme,
globex), owners (agent-a, agent-b, no owner = MCP/CLI facts) and scopes
(private, shared by ACL or delegation, public, global, one quarantined).
Each reader — the trusted CLI, MCP stdio and HTTP callers bound (or not) to
an org and agent, gRPC requests naming agent_id/org_id — reads every
sentinel in one call per verb; each parametrized row then asserts one
(surface, reader, verb, memory) is visible or hidden as the rule says.

Rows of verbs that cap or do not list facts (context_pack's top 10 hot facts,
search over pages, TrajectoryAudit's stale-fact groups) assert only the
hidden side: a sentinel that must not leak. The entity card lists no fact
texts, so its row checks ``active_fact_count``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from brainkeep.grpc.server import GrpcServerHandle, start_grpc_server
from tests.e2e.visibility_surfaces import (
    CLI_VERBS,
    GRPC_RECALLS,
    MCP_VERBS,
    Observed,
    active_fact_count,
    collect_cli,
    collect_grpc,
    collect_http,
    collect_stdio,
    collect_threads,
    create_token,
)
from tests.e2e.visibility_world import (
    READ_SET,
    WRITE_SET,
    A,
    B,
    C,
    D,
    Mem,
    Reader,
    Seeded,
    seed,
    visible,
    write_text,
)
from tests.http.http_support import OPEN_LIMITS, make_home, start_server

CLI_READERS = [Reader("cli"), Reader("cli", "acme"), Reader("cli", "globex")]
STDIO_READERS = [Reader("stdio"), Reader("stdio", "acme", A), Reader("stdio", None, C)]
HTTP_READERS = [
    Reader("http"), Reader("http", None, A), Reader("http", None, B), Reader("http", None, D),
    Reader("http", "acme", B), Reader("http", "acme", C), Reader("http", "globex", B),
]
GRPC_READERS = [
    Reader("grpc", None, "default"), Reader("grpc", None, A), Reader("grpc", None, C),
    Reader("grpc", None, D), Reader("grpc", "acme", A), Reader("grpc", "acme", B),
    Reader("grpc", "acme", C), Reader("grpc", "globex", B), Reader("grpc", "globex", A),
]
# Replay, Verify and TrajectoryAudit carry no org_id: the agent reads in the no-org
# tenant. agent None = the RPCs' "all agents" form, checked for tenant leaks only.
THREAD_READERS = [Reader("grpc", None, A), Reader("grpc", None, B), Reader("grpc", None, C),
                  Reader("grpc", None, None)]
LEAK_ONLY = ("context_pack", "search", "TrajectoryAudit")


@dataclass(frozen=True)
class Row:
    reader: Reader
    verb: str
    mem: Mem | None  # None: the entity card's count
    expected: bool | int

    @property
    def id(self) -> str:
        what = self.mem.key if self.mem else "active_fact_count"
        return f"{self.reader.id}-{self.verb}-{what}"


def _verb_rows(reader: Reader, verb: str) -> list[Row]:
    if verb == "entity":
        count = sum(visible(m, reader) for m in READ_SET if m.has_entity)
        return [Row(reader, verb, None, count)]
    mems = [m for m in READ_SET if m.has_entity] if verb == "recall_entity" else READ_SET
    rows = [Row(reader, verb, m, visible(m, reader)) for m in mems]
    return [r for r in rows if not r.expected] if verb in LEAK_ONLY else rows


def _thread_rows(reader: Reader) -> list[Row]:
    rows: list[Row] = []
    for m in (m for m in READ_SET if m.via_grpc):
        if reader.agent is None:  # all agents: no other tenant's memory may be counted
            rows.append(Row(reader, "Verify", m, visible(m, reader, tenant_only=True)))
            rows.append(Row(reader, "TrajectoryAudit", m, visible(m, reader, tenant_only=True)))
            continue
        # Replay and Verify walk the agent's own thread: its memories, if it may see them.
        own = m.owner == reader.agent and visible(m, reader)
        rows += [Row(reader, "Replay", m, own), Row(reader, "Verify", m, own),
                 Row(reader, "TrajectoryAudit", m, visible(m, reader))]
    return [r for r in rows if r.verb not in LEAK_ONLY or not r.expected]


def _rows() -> list[Row]:
    rows: list[Row] = []
    for reader in CLI_READERS:
        rows += [r for verb in CLI_VERBS for r in _verb_rows(reader, verb)]
    for reader in STDIO_READERS + HTTP_READERS:
        rows += [r for verb in MCP_VERBS for r in _verb_rows(reader, verb)]
    for reader in GRPC_READERS:
        rows += [r for verb in GRPC_RECALLS for r in _verb_rows(reader, verb)]
    for reader in THREAD_READERS:
        rows += _thread_rows(reader)
    return rows


ROWS = _rows()


# ---- the world, served once per module ----

@dataclass
class World:
    seeded: Seeded
    brain: Brain
    stub: pb_grpc.MnemoServiceStub

    def fact_id(self, key: str) -> str:
        return self.seeded.fact_ids.get(key, "999999999")

    def uuid(self, key: str) -> str:
        return self.seeded.uuids[key]

    def is_live(self, key: str) -> bool:
        return self.is_live_uuid(self.uuid(key))

    def is_live_uuid(self, uuid: str) -> bool:
        """Neither expired, deleted nor redacted (read from the file, behind every surface)."""
        with closing(sqlite3.connect(self.brain.settings.db_path)) as db:
            row = db.execute("SELECT expired_at, deleted_at, text FROM memories WHERE uuid = ?",
                             (uuid,)).fetchone()
        return row is not None and row[0] is None and row[1] is None and row[2] != "[REDACTED]"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    home = make_home(tmp_path_factory.mktemp("visibility") / "home", OPEN_LIMITS)
    brain = open_brain(load_settings(home, env={}))
    handle: GrpcServerHandle = start_grpc_server(brain, port=0)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{handle.port}") as channel:
            stub = pb_grpc.MnemoServiceStub(channel)
            yield World(seed(home, brain, stub), brain, stub)
    finally:
        handle.stop(grace=1.0)
        brain.mnemo.flush_reads()
        brain.close()


MCP_WRITES = {  # reader id -> (write name, memory key); run after that reader's reads
    Reader("http").id: [("forget-readable-foreign-owner", "w-none-a-public-1"),
                        ("forget-foreign-org", "w-acme-world")],
    Reader("http", None, B).id: [("forget-bound-foreign-owner", "w-none-a-public-2")],
    Reader("http", None, A).id: [("forget-bound-owner", "w-none-a-public-3")],
    Reader("stdio").id: [("forget-unreadable", "w-none-a-private-1")],
}


@pytest.fixture(scope="module")
def observed(world: World) -> dict[str, Observed]:
    """Every reader's replies, keyed by reader id."""
    seeded, seen = world.seeded, {}

    def writes(reader: Reader) -> list[tuple[str, str, dict[str, str]]]:
        return [(name, "forget", {"id": world.fact_id(key), "reason": "visibility matrix"})
                for name, key in MCP_WRITES.get(reader.id, [])]

    for reader in CLI_READERS:
        seen[reader.id] = collect_cli(seeded, reader)
    for reader in STDIO_READERS:
        seen[reader.id] = collect_stdio(seeded, reader, writes(reader))
    server = start_server(seeded.home)
    try:
        for n, reader in enumerate(HTTP_READERS):
            try:
                secret = create_token(seeded.home, f"vis-{n}", reader.org, reader.agent)
            except RuntimeError as exc:
                seen[reader.id] = Observed(errors={v: str(exc) for v in MCP_VERBS})
                continue
            seen[reader.id] = collect_http(seeded, server.url, secret, writes(reader))
    finally:
        server.stop()
    for reader in GRPC_READERS:
        seen[reader.id] = collect_grpc(world.stub, reader)
    as_of = world.brain.clock.now_ts()
    for reader in THREAD_READERS:
        threads = collect_threads(world.stub, seeded, reader, as_of)
        into = seen.setdefault(reader.id, Observed())
        into.text.update(threads.text)
        into.errors.update(threads.errors)
    return seen


# ---- the matrix ----

def test_seeded_world_is_whole(world: World) -> None:
    """Every memory was written (a seeding failure names its cause here first)."""
    assert world.seeded.errors == {}
    assert set(world.seeded.uuids) == {m.key for m in READ_SET + WRITE_SET}
    assert Path(world.brain.settings.db_path).exists()


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_visibility(row: Row, world: World, observed: dict[str, Observed]) -> None:
    needed = [row.mem] if row.mem else [m for m in READ_SET if m.has_entity]
    missing = [world.seeded.errors[m.key] for m in needed if m.key in world.seeded.errors]
    if missing:
        pytest.fail("; ".join(missing))
    seen = observed[row.reader.id]
    if row.verb in seen.errors:
        pytest.fail(f"{row.reader.id} {row.verb} failed: {seen.errors[row.verb]}")
    text = seen.text[row.verb]
    if row.mem is None:
        assert active_fact_count(text) == row.expected, f"{row.id}: card count"
        return
    shown = row.mem.token in text
    want = "visible" if row.expected else "hidden"
    assert shown == row.expected, (
        f"{row.reader.id} {row.verb}: {row.mem.key} should be {want}, was "
        f"{'visible' if shown else 'hidden'}"
    )


def test_matrix_covers_every_surface_and_rule() -> None:
    """A guard on the table itself: each rule has rows on each surface, both ways."""
    surfaces = {r.reader.surface for r in ROWS}
    assert surfaces == {"cli", "stdio", "http", "grpc"}
    for surface in surfaces:
        mine = [r for r in ROWS if r.reader.surface == surface and r.mem is not None]
        assert any(r.expected for r in mine) and any(not r.expected for r in mine)
    assert any(r.mem and r.mem.quarantined and not r.expected for r in ROWS)
    assert any(r.mem and r.mem.scope == "shared" and r.expected and r.reader.agent != r.mem.owner
               for r in ROWS)


# ---- writes: the same permission whichever protocol asks ----

@pytest.mark.parametrize(("reader", "name", "key", "error"), [
    # readable (public) but owned by agent-a: refused, not hidden
    (Reader("http"), "forget-readable-foreign-owner", "w-none-a-public-1", "scope_denied"),
    (Reader("http", None, B), "forget-bound-foreign-owner", "w-none-a-public-2", "scope_denied"),
    # not even readable by the caller: not_found, never a hint
    (Reader("stdio"), "forget-unreadable", "w-none-a-private-1", "not_found"),
    (Reader("http"), "forget-foreign-org", "w-acme-world", "not_found"),
], ids=lambda v: v.id if isinstance(v, Reader) else None)
def test_mcp_forget_needs_the_owners_permission(
    reader: Reader, name: str, key: str, error: str, world: World,
    observed: dict[str, Observed],
) -> None:
    seen = observed[reader.id]
    assert name in seen.writes, seen.errors
    is_error, payload = seen.writes[name]
    assert world.is_live(key), f"{reader.id} {name}: {key} was forgotten ({payload})"
    assert is_error and payload.get("error") == error, payload


def test_mcp_forget_by_the_bound_owner_works(world: World,
                                             observed: dict[str, Observed]) -> None:
    seen = observed[Reader("http", None, A).id]
    assert "forget-bound-owner" in seen.writes, seen.errors
    is_error, payload = seen.writes["forget-bound-owner"]
    assert not is_error and payload.get("expired") is True, payload
    assert not world.is_live("w-none-a-public-3")


def _rpc_code(call: object, request: object) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as info:
        call(request)  # type: ignore[operator]
    return info.value.code()


def test_grpc_forget_follows_the_same_write_rule(world: World) -> None:
    forget = world.stub.Forget
    reply = forget(pb.ForgetRequest(memory_ids=[world.uuid("w-none-a-public-4")], agent_id=B))
    assert not reply.forgotten and [e.error for e in reply.errors] == ["permission denied"]
    # By-id RPCs carry no org_id: another tenant's fact is not even found.
    other = forget(pb.ForgetRequest(memory_ids=[world.uuid("w-acme-world")], agent_id=A))
    assert not other.forgotten and [e.error for e in other.errors] == ["not found"]
    assert world.is_live("w-none-a-public-4") and world.is_live("w-acme-world")
    # An unowned fact may be changed by any writer of its tenant who sees it (scope.may_change).
    unowned = forget(pb.ForgetRequest(memory_ids=[world.uuid("w-none-world")], agent_id=A))
    assert list(unowned.forgotten) == [world.uuid("w-none-world")], unowned.errors
    assert not world.is_live("w-none-world")


def test_grpc_share_and_consolidate_need_the_permission(world: World) -> None:
    public, private = world.uuid("w-none-a-public-4"), world.uuid("w-none-a-private-2")
    share = world.stub.Share
    assert _rpc_code(share, pb.ShareRequest(memory_id=public, target_agent_id=C,
                                            agent_id=B)) == grpc.StatusCode.PERMISSION_DENIED
    assert _rpc_code(share, pb.ShareRequest(memory_id=private, target_agent_id=C,
                                            agent_id=B)) == grpc.StatusCode.NOT_FOUND
    # Consolidate reads its members (members stay as they are): an unreadable one is
    # not_found; its write is `supersede`, which needs the topic document's owner.
    consolidate = world.stub.Consolidate
    assert _rpc_code(consolidate, pb.ConsolidateRequest(
        memory_ids=[private], topic_name="stolen", agent_id=B,
    )) == grpc.StatusCode.NOT_FOUND
    topic = consolidate(pb.ConsolidateRequest(memory_ids=[public], topic_name="ledger",
                                              agent_id=A)).topic_document_id
    assert _rpc_code(consolidate, pb.ConsolidateRequest(
        memory_ids=[public], topic_name="ledger", agent_id=B, supersede=topic,
    )) in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.NOT_FOUND)
    assert world.is_live_uuid(topic)
    # Nothing was granted: agent-b still cannot read the private one.
    text = write_text(next(m for m in WRITE_SET if m.key == "w-none-a-private-2"))
    got = world.stub.Recall(pb.RecallRequest(query=text, agent_id=B))
    assert private not in [m.id for m in got.memories]
    assert world.is_live("w-none-a-public-4") and world.is_live("w-none-a-private-2")

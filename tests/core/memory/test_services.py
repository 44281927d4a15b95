"""Domain rules below the transport: validation, access, chains, audit, layering."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from brainkeep.brain import Brain
from brainkeep.core.memory import access, validation
from brainkeep.core.memory.mnemo import MnemoService
from brainkeep.core.memory.models import DEFAULT_AGENT, IMPLIED, PERMISSIONS
from brainkeep.core.memory.recall import RecallInput
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.memory.sharing import ShareInput
from brainkeep.core.memory.trajectory import TIMELINE_POINTS, _thin
from brainkeep.core.memory_checks import links as _links
from brainkeep.core.verify import verify_brain
from brainkeep.errors import InvalidInput, NotFound, PermissionDenied

CORE = Path(__file__).resolve().parents[3] / "src" / "brainkeep" / "core"


def test_agent_id_rule() -> None:
    assert validation.agent_id(None) == DEFAULT_AGENT
    assert validation.agent_id("a.b_c-9") == "a.b_c-9"
    for bad in ("", " ", "a b", "é", "x" * 257, "a/b"):
        with pytest.raises(InvalidInput):
            validation.agent_id(bad)
    with pytest.raises(InvalidInput):
        validation.agent_id(None, default=None)


def test_json_and_timestamps() -> None:
    assert validation.json_object(None, "m") == {}
    assert validation.json_object('{"a": 1}', "m") == {"a": 1}
    assert validation.json_object("[1]", "s", allow_any=True) == [1]
    with pytest.raises(InvalidInput, match="not valid JSON"):
        validation.json_object("{", "m")
    assert validation.timestamp("2026-01-02T03:04:05+02:00", "t") == "2026-01-02T01:04:05.000000Z"
    with pytest.raises(InvalidInput):
        validation.timestamp("soon", "t")


def test_every_permission_implies_read_and_admin_implies_all() -> None:
    assert all("read" in IMPLIED[p] for p in PERMISSIONS)
    assert IMPLIED["admin"] == frozenset(PERMISSIONS)


def test_links_bridge_only_through_logged_hard_deletes() -> None:
    bridge = {"h2": "h1", "h3": "h2"}
    assert _links("h1", "h1", {})
    assert _links(None, None, {})
    assert _links("h3", "h1", bridge)
    assert _links("h1", None, {"h1": None})
    assert not _links("h9", "h1", bridge)
    assert not _links(None, "h1", bridge)
    assert not _links("a", "z", {"a": "b", "b": "a"})  # cycles terminate


def test_thin_timeline_keeps_last_point() -> None:
    points = [(str(i), i) for i in range(5000)]
    thinned = _thin(points)
    assert len(thinned) <= TIMELINE_POINTS + 1 and thinned[-1] == points[-1]
    assert _thin(points[:10]) == points[:10]


def test_access_rules(mnemo: MnemoService, brain: Brain) -> None:
    now = brain.clock.now_ts()
    private = mnemo.remember(RememberInput(content="p", agent_id="alice"))
    org_public = mnemo.remember(RememberInput(content="o", agent_id="alice", scope="public",
                                              org_id="acme"))
    ctx = mnemo.ctx
    assert access.can_read(ctx, private, "alice", now)
    assert not access.can_read(ctx, private, "bob", now)
    assert not access.can_read(ctx, org_public, "bob", now)  # by id, tenants stay closed
    with pytest.raises(NotFound):
        access.load(ctx, private.uuid, "bob", now)
    mnemo.share(ShareInput(memory_ids=(private.uuid,), targets=("bob",), agent_id="alice"))
    shared = access.load(ctx, private.uuid, "bob", now)
    assert access.require(ctx, shared, "bob", "read", now).via == "acl"
    with pytest.raises(PermissionDenied):
        access.require(ctx, shared, "bob", "delete", now)


def test_recall_reads_are_logged_without_the_query(mnemo: MnemoService, brain: Brain) -> None:
    mnemo.remember(RememberInput(content="secret plans", agent_id="alice"))
    result = mnemo.recall(RecallInput(query="secret plans", agent_id="alice"))
    assert len(result.memories) == 1 and result.degraded
    mnemo.flush_reads()
    [read] = brain.store.iter_reads(None, "alice", None)
    assert read.memory_ids == (result.memories[0].memory.id,)
    assert "secret" not in str(read)
    assert brain.store.events_for("reads", "recall-batch") == []
    assert brain.store.get_memory_by_uuid(result.memories[0].memory.uuid).access_count == 1


def test_every_write_keeps_verify_brain_valid(mnemo: MnemoService, brain: Brain) -> None:
    ids = [mnemo.remember(RememberInput(content=f"m{i}", agent_id="alice", thread_id="t"))
           for i in range(7)]
    for memory, strategy in zip(ids, ["soft_delete", "hard_delete", "decay", "archive",
                                      "consolidate", "redact"], strict=False):
        mnemo.forget([memory.uuid], strategy, "alice")
        assert verify_brain(brain.store).valid, strategy
        assert mnemo.verify("alice", "t").valid, strategy


def test_core_never_imports_a_front_end() -> None:
    banned = ("grpc", "click", "mcp", "sqlite3", "brainkeep.grpc", "brainkeep.cli",
              "brainkeep.mcp")
    for path in (CORE / "mnemo").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not any(name == b or name.startswith(b + ".") for b in banned), (
                    f"{path.name} imports {name}")

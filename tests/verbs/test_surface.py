"""Surfaces filter both the advertised list and dispatch; the catalog is self-consistent."""

from __future__ import annotations

import dataclasses

from brainkeep.core.context import STDIO
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import VERB_NAMES, build_catalog

from .conftest import VerbHarness

PAGE_OPS = {"put_page", "get_page", "list_pages", "delete_page", "search", "add_link",
            "add_timeline_entry"}
ADMIN_OPS = {"revoke_grant"}  # full surface only, admin scope


def test_verbs_surface_is_exactly_the_seven(harness: VerbHarness) -> None:
    verbs = Dispatcher(build_catalog(), harness.brain, surface="verbs")
    assert [op.name for op in verbs.visible()] == list(VERB_NAMES)
    full = Dispatcher(build_catalog(), harness.brain, surface="full")
    assert {op.name for op in full.visible()} == set(VERB_NAMES) | PAGE_OPS | ADMIN_OPS


def test_hidden_tool_called_by_name_is_unknown_tool(harness: VerbHarness) -> None:
    verbs = Dispatcher(build_catalog(), harness.brain, surface="verbs")
    outcome = verbs.call("put_page", {"slug": "a/b", "content": "x"}, STDIO)
    assert outcome.is_error and outcome.payload["error"] == "unknown_tool"
    assert harness.brain.store.get_page("default", "a/b") is None
    assert not verbs.call("entity", {"name": "nobody"}, STDIO).is_error


def test_every_operation_is_described_and_verbs_are_annotated() -> None:
    for op in build_catalog().operations:
        definition = op.tool_definition()
        assert definition["description"].strip()
        assert definition["inputSchema"]["type"] == "object"
        if op.verb:
            hints = definition["annotations"]
            assert "title" in hints
            assert hints.get("readOnlyHint") or hints.get("destructiveHint") or hints.get(
                "idempotentHint"
            )
        else:
            assert set(definition) == {"name", "description", "inputSchema"}
    synth = build_catalog().get("synthesize")
    assert synth is not None and synth.description.startswith("[EXPENSIVE")
    assert "costly" in synth.annotations["title"]


def test_write_ops_need_the_write_scope(harness: VerbHarness) -> None:
    reader = dataclasses.replace(STDIO, scopes=frozenset({"read"}))
    payload, is_error = harness.call("remember", reader, fact="x", provenance="t")
    assert is_error and payload["error"] == "scope_denied"
    assert "write" in payload["suggestion"] and payload["protocol_version"] == 1
    assert harness.ok("recall", reader)["total"] == 0
    writer = dataclasses.replace(STDIO, scopes=frozenset({"write"}))
    assert harness.ok("remember", writer, fact="x", provenance="t")["status"] == "inserted"

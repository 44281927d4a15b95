"""context_pack's `orientation_namespace` (brainkeep extension): the gRPC map, read-only, scoped."""

from __future__ import annotations

import json
import math

from brainkeep.core.context import STDIO, Caller
from brainkeep.core.memory.orientation_map import OrientationRequest
from brainkeep.core.memory.recall import RecallInput
from brainkeep.core.memory.remember import RememberInput
from brainkeep.ops.response_schemas import RESPONSE_SCHEMAS

from .conftest import VerbHarness

ALICE = Caller(remote=True, client_id="alice-token", transport="http", agent_id="alice")


def _build(harness: VerbHarness) -> None:
    """A map built the way gRPC builds one: Recall with orientation_cache."""
    mnemo = harness.brain.mnemo
    mnemo.remember(RememberInput(content="Alice Chen runs billing; port: 5432",
                                 agent_id="alice", scope="public"))
    mnemo.remember(RememberInput(content="Zed Quill keeps VAULT_KEY=s3cr3t-7 for billing",
                                 agent_id="alice", scope="private"))
    mnemo.recall(RecallInput(query="billing", agent_id="alice",
                             orientation_cache=OrientationRequest(namespace="team")))
    mnemo.flush_reads()


def _keys(payload: dict[str, object], kind: str) -> set[tuple[str, str]]:
    orientation = payload["orientation"]
    assert isinstance(orientation, dict)
    return {(e["key"], e["value"]) for e in orientation[kind]}


def test_the_map_comes_back_as_the_caller_may_see_it(harness: VerbHarness) -> None:
    _build(harness)
    anon = harness.ok("context_pack", STDIO, entities="x", orientation_namespace="team")
    m = anon["orientation"]
    assert (m["namespace"], m["hit_count"], m["budget"]) == ("team", 1, 512)
    assert _keys(anon, "entities") == {("Alice Chen", "name")}
    assert _keys(anon, "constants") == {("port", "5432")}
    assert "s3cr3t" not in json.dumps(anon) and "Zed Quill" not in json.dumps(anon)
    entries = [*m["entities"], *m["constants"], *m["schemas"]]
    assert m["token_estimate"] == sum(e["token_estimate"] for e in entries) <= 512
    assert all(e["token_estimate"] == math.ceil(len(f"{e['key']}: {e['value']} ({e['freq']})")
                                                / 4) for e in entries)
    assert "## Orientation map" in anon["text"]
    assert "- [entity] Alice Chen: name (1)" in anon["text"]
    # The owner, bound to her agent, also counts her own private memory.
    mine = harness.ok("context_pack", ALICE, entities="x", orientation_namespace="team")
    assert ("VAULT_KEY", "s3cr3t-7") in _keys(mine, "constants")
    assert set(RESPONSE_SCHEMAS["context_pack"]["properties"]["orientation"]["required"]) <= set(
        mine["orientation"])


def test_reading_is_read_only_and_per_tenant(harness: VerbHarness) -> None:
    _build(harness)
    for _ in range(2):
        again = harness.ok("context_pack", ALICE, entities="x", orientation_namespace="team")
        assert again["orientation"]["hit_count"] == 1
    acme = Caller(remote=True, client_id="acme-token", transport="http", org_id="acme",
                  agent_id="alice")
    other = harness.ok("context_pack", acme, entities="x",
                       orientation_namespace="team")["orientation"]
    assert (other["hit_count"], other["entities"], other["constants"]) == (0, [], [])


def test_without_the_param_nothing_changes_and_a_blank_label_is_refused(
        harness: VerbHarness) -> None:
    _build(harness)
    plain = harness.ok("context_pack", entities="x")
    assert "orientation" not in plain and "Orientation map" not in plain["text"]
    assert harness.err("context_pack", entities="x", orientation_namespace="  ")["error"] == (
        "invalid_params")

"""Private facts and pages never reach a remote caller, through any verb or page op.

Each path is checked with a sentinel string; the local (trusted) caller sees
the same sentinel where it asks for private data, proving the probe can fail.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from brainkeep.core.context import LOCAL

from .conftest import VerbHarness

SENTINEL = "ZEBRA-SENTINEL-9431"


@pytest.fixture
def seeded(harness: VerbHarness) -> VerbHarness:
    harness.page("people/ada", "---\ntitle: Ada\nknows: people/hidden\n---\nAda is public.")
    harness.page(
        "people/hidden",
        f"---\ntitle: Hidden {SENTINEL}\nvisibility: private\naliases: [Ghost]\n"
        f"knows: people/ada\n---\nSecret {SENTINEL} page body.\n\n## Timeline\n"
        f"- 2026-06-14: {SENTINEL} meeting\n",
    )
    for kind in ("fact", "commitment"):
        harness.local("remember", fact=f"{SENTINEL} {kind}", provenance="t", entity="people/ada",
                      kind=kind, visibility="private")
    harness.ok("remember", fact="world fact about Ada", provenance="t", entity="people/ada")
    return harness


REMOTE_PROBES: list[tuple[str, dict[str, Any]]] = [
    ("recall", {"entity": "people/ada"}),
    ("recall", {"entity": "people/ada", "include_expired": True}),
    ("recall", {"query": SENTINEL}),
    ("recall", {"query": "Secret page body"}),
    ("recall", {"grep": SENTINEL}),
    ("recall", {}),
    ("entity", {"name": "people/ada"}),
    ("entity", {"name": "Ghost"}),
    ("entity", {"name": "people/hidden"}),
    ("entity", {"name": f"Hidden {SENTINEL}"}),
    ("entity", {"name": "secret page"}),
    ("context_pack", {"entities": "people/ada,people/hidden,Ghost"}),
    ("context_pack", {"entities": "people/ada", "include_private": True}),
    ("delta", {"since": "2000-01-01", "entities": "people/ada,people/hidden"}),
    ("delta", {"since": "2000-01-01", "include_private": True}),
    ("search", {"query": SENTINEL}),
    ("search", {"query": "secret"}),
    ("list_pages", {}),
]


@pytest.mark.parametrize(("op", "params"), REMOTE_PROBES)
def test_remote_never_sees_the_sentinel(
    seeded: VerbHarness, op: str, params: dict[str, Any]
) -> None:
    payload, _ = seeded.call(op, **params)
    assert SENTINEL not in json.dumps(payload)


def test_remote_get_page_of_private_page_is_not_found(seeded: VerbHarness) -> None:
    payload = seeded.err("get_page", slug="people/hidden")
    assert payload["error"] == "not_found" and SENTINEL not in json.dumps(payload)


def test_remote_card_edges_skip_private_pages(seeded: VerbHarness) -> None:
    card = seeded.ok("entity", name="people/ada")["card"]
    assert all(edge["slug"] != "people/hidden" for edge in card["edges"])
    assert card["backlink_count"] == 0 and card["active_fact_count"] == 1


LOCAL_PROBES: list[tuple[str, dict[str, Any]]] = [
    ("recall", {"entity": "people/ada"}),
    ("recall", {"query": SENTINEL}),
    ("entity", {"name": "Ghost"}),
    ("context_pack", {"entities": "people/ada", "include_private": True}),
    ("delta", {"since": "2000-01-01", "include_private": True}),
    ("get_page", {"slug": "people/hidden"}),
]


@pytest.mark.parametrize(("op", "params"), LOCAL_PROBES)
def test_local_caller_does_see_private_data(
    seeded: VerbHarness, op: str, params: dict[str, Any]
) -> None:
    assert SENTINEL in json.dumps(seeded.ok(op, LOCAL, **params))


def test_local_context_pack_is_world_only_by_default(seeded: VerbHarness) -> None:
    payload = seeded.ok("context_pack", LOCAL, entities="people/ada")
    assert SENTINEL not in json.dumps(payload)

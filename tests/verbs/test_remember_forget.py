"""remember and forget: provenance, ttl, kinds, dedup, idempotent expiry, trust fences."""

from __future__ import annotations

import pytest

from brainkeep.core.context import LOCAL
from brainkeep.core.limits import MAX_PROVENANCE_CHARS

from .conftest import VerbHarness


def test_inserted_echoes_nulls(harness: VerbHarness) -> None:
    payload = harness.ok("remember", fact="Ada likes tea", provenance="chat")
    assert payload["status"] == "inserted"
    assert isinstance(payload["id"], str)
    assert payload["entity_slug"] is None and payload["valid_until"] is None
    assert payload["degraded_dedup"] is True
    assert payload["status_text"]


def test_missing_provenance_is_invalid_params(harness: VerbHarness) -> None:
    assert harness.err("remember", fact="x")["error"] == "invalid_params"


def test_blank_provenance_is_provenance_required(harness: VerbHarness) -> None:
    payload = harness.err("remember", fact="x", provenance="   ")
    assert payload["error"] == "provenance_required"
    assert payload["suggestion"]


def test_overlong_provenance_is_invalid_params(harness: VerbHarness) -> None:
    # `provenance_required` is for a missing or blank provenance only; one
    # over the cap is a plain `invalid_params` (as the reference answers).
    payload = harness.err("remember", fact="x", entity="people/p",
                          provenance="p" * (MAX_PROVENANCE_CHARS + 1))
    assert payload["error"] == "invalid_params"
    assert "501 characters" in payload["message"] and "500" in payload["message"]
    assert "Shorten" in payload["suggestion"]
    assert harness.ok("recall", entity="people/p")["total"] == 0


def test_provenance_at_the_cap_is_accepted(harness: VerbHarness) -> None:
    # Padding is stripped before the count, as it is before storing.
    payload = harness.ok("remember", fact="x", entity="people/p",
                         provenance=" " + "p" * MAX_PROVENANCE_CHARS + " ")
    assert payload["status"] == "inserted"
    assert harness.ok("recall", entity="people/p")["total"] == 1


def test_iso_duration_ttl_is_rejected_with_shorthand(harness: VerbHarness) -> None:
    payload = harness.err("remember", fact="x", provenance="t", ttl="P30D")
    assert payload["error"] == "invalid_params"
    assert "30d" in payload["suggestion"]


@pytest.mark.parametrize("ttl", ["30d", "12h", "45m", "2027-01-01T00:00:00Z"])
def test_ttl_forms(harness: VerbHarness, ttl: str) -> None:
    payload = harness.ok("remember", fact=f"fact {ttl}", provenance="t", ttl=ttl)
    assert payload["valid_until"] > harness.time.now.isoformat()[:10]


def test_unknown_kind_and_visibility(harness: VerbHarness) -> None:
    assert harness.err("remember", fact="x", provenance="t", kind="rumor")["error"] == (
        "invalid_params"
    )
    assert harness.err("remember", fact="x", provenance="t", visibility="team")["error"] == (
        "invalid_params"
    )


def test_entity_is_canonicalized_through_aliases(harness: VerbHarness) -> None:
    harness.page("people/ada-lovelace", "---\ntitle: Ada Lovelace\naliases: [Countess]\n---\n")
    assert harness.ok("remember", fact="a", provenance="t", entity="Countess")["entity_slug"] == (
        "people/ada-lovelace"
    )
    assert harness.ok("remember", fact="b", provenance="t", entity="Ada Lovelace")[
        "entity_slug"
    ] == "people/ada-lovelace"
    # No page yet: a namespaced slug is kept as is (not flattened to people-new-person).
    assert harness.ok("remember", fact="c", provenance="t", entity="people/new-person")[
        "entity_slug"
    ] == "people/new-person"
    assert harness.ok("recall", entity="Countess")["total"] == 2


def test_exact_duplicate_returns_existing_id(harness: VerbHarness) -> None:
    first = harness.ok("remember", fact="Ada likes tea.", provenance="t", entity="people/ada")
    again = harness.ok("remember", fact="ada  likes TEA.", provenance="u", entity="people/ada")
    assert again["status"] == "duplicate" and again["id"] == first["id"]
    assert again["degraded_dedup"] is True
    other = harness.ok("remember", fact="Ada likes tea.", provenance="t", entity="people/bob")
    assert other["status"] == "inserted"


def test_forget_is_idempotent_and_keeps_the_row(harness: VerbHarness) -> None:
    fact_id = harness.ok("remember", fact="to go", provenance="t")["id"]
    first = harness.ok("forget", id=fact_id, reason="wrong")
    assert first == {"id": fact_id, "expired": True, "reason": "wrong", "protocol_version": 1}
    second = harness.ok("forget", id=fact_id)
    assert second["expired"] is False and second["reason"] is None
    memory = harness.brain.store.get_memory(int(fact_id))
    assert memory is not None and memory.expired_at and memory.expired_reason == "wrong"
    kinds = [e.kind for e in harness.brain.store.events_for("memory", memory.uuid)]
    assert kinds == ["memory.insert", "memory.expire"]


@pytest.mark.parametrize(
    "bad", ["999999", "people/ada", "", "01a22b26-bb22-72ce-9ab7-5ef26990480d"]
)
def test_forget_unknown_is_not_found(harness: VerbHarness, bad: str) -> None:
    payload = harness.err("forget", id=bad)
    assert payload["error"] == "not_found" and payload["suggestion"]


def test_remote_cannot_forget_a_private_fact(harness: VerbHarness) -> None:
    fact_id = harness.local("remember", fact="secret", provenance="t", visibility="private")["id"]
    assert harness.err("forget", id=fact_id)["error"] == "not_found"
    memory = harness.brain.store.get_memory(int(fact_id))
    assert memory is not None and memory.expired_at is None
    assert harness.ok("forget", LOCAL, id=fact_id)["expired"] is True

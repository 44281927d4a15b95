"""recall: composed filters, since validation, valid_until, limits, budget packing."""

from __future__ import annotations

from brainkeep.core.context import LOCAL
from brainkeep.core.search import DEGRADED_KEYWORD_ONLY

from .conftest import VerbHarness

LEGACY_FIELDS = [
    "id", "fact", "kind", "entity_slug", "visibility", "notability", "valid_from",
    "valid_until", "expired_at", "superseded_by", "consolidated_at", "consolidated_into",
    "source", "source_session", "confidence", "created_at",
]


def test_fact_objects_carry_legacy_fields_plus_fact_id_and_provenance(
    harness: VerbHarness,
) -> None:
    harness.ok("remember", fact="Ada likes tea", provenance="chat 2026-06-01",
               entity="people/ada")
    payload = harness.ok("recall", entity="people/ada")
    fact = payload["facts"][0]
    assert list(fact)[: len(LEGACY_FIELDS)] == LEGACY_FIELDS
    assert isinstance(fact["id"], int)
    assert fact["fact_id"] == str(fact["id"])
    assert fact["provenance"] == fact["source"] == "chat 2026-06-01"
    assert payload["total"] == 1
    assert "results" not in payload and "budget_tokens" not in payload


def test_empty_brain_is_success_not_error(harness: VerbHarness) -> None:
    payload = harness.ok("recall")
    # Every read marks its text as data (docs/security.md): an additive field.
    assert payload.pop("content_origin")["instructions"] is False
    assert payload == {"protocol_version": 1, "facts": [], "total": 0}


def test_entity_and_since_compose(harness: VerbHarness) -> None:
    # Reference bug: `since` was ignored when `entity` was given.
    harness.ok("remember", fact="old fact", provenance="t", entity="people/ada")
    harness.time.advance(days=10)
    cut = harness.time.now.isoformat()
    harness.time.advance(days=1)
    harness.ok("remember", fact="new fact", provenance="t", entity="people/ada")
    harness.ok("remember", fact="other entity", provenance="t", entity="people/bob")
    facts = harness.ok("recall", entity="people/ada", since=cut)["facts"]
    assert [f["fact"] for f in facts] == ["new fact"]


def test_session_and_entity_compose(harness: VerbHarness) -> None:
    harness.ok("remember", fact="a", provenance="t", entity="people/ada", session_id="s1")
    harness.ok("remember", fact="b", provenance="t", entity="people/bob", session_id="s1")
    harness.ok("remember", fact="c", provenance="t", entity="people/ada", session_id="s2")
    facts = harness.ok("recall", entity="people/ada", session_id="s1")["facts"]
    assert [f["fact"] for f in facts] == ["a"]


def test_unparseable_since_is_invalid_params(harness: VerbHarness) -> None:
    # Reference bug: an unparseable `since` silently returned nothing.
    payload = harness.err("recall", entity="people/ada", since="last tuesday-ish")
    assert payload["error"] == "invalid_params"
    assert "ISO 8601" in payload["suggestion"]


def test_relative_since(harness: VerbHarness) -> None:
    harness.ok("remember", fact="early", provenance="t")
    harness.time.advance(hours=10)
    harness.ok("remember", fact="late", provenance="t")
    assert [f["fact"] for f in harness.ok("recall", since="2 hours ago")["facts"]] == ["late"]


def test_past_valid_until_hides_fact_unless_include_expired(harness: VerbHarness) -> None:
    # Reference bug: a passed valid_until did not hide the fact.
    harness.ok("remember", fact="short-lived", provenance="t", ttl="1h", entity="people/ada")
    assert harness.ok("recall", entity="people/ada")["total"] == 1
    harness.time.advance(hours=2)
    assert harness.ok("recall", entity="people/ada")["total"] == 0
    assert harness.ok("recall", entity="people/ada", include_expired=True)["total"] == 1


def test_limit_default_and_cap(harness: VerbHarness) -> None:
    with harness.brain.store.transaction():
        for i in range(120):
            harness.brain.facts.remember(f"fact {i}", "t", LOCAL, entity="people/x")
    assert harness.ok("recall", entity="people/x")["total"] == 50
    assert harness.ok("recall", entity="people/x", limit=500)["total"] == 100
    assert harness.ok("recall", entity="people/x", limit=3)["total"] == 3


def test_budget_packs_a_strict_prefix_facts_first(harness: VerbHarness) -> None:
    for text in ("a" * 40, "b" * 4, "c" * 40):  # 10, 1, 10 tokens; newest first: c, b, a
        harness.ok("remember", fact=text, provenance="t", entity="people/p")
    payload = harness.ok("recall", entity="people/p", budget_tokens=15)
    # c (10) fits, b (1) fits, a (10) does not: strict prefix of newest-first order.
    assert [f["fact"][0] for f in payload["facts"]] == ["c", "b"]
    assert payload["budget_used"] == 11 and payload["dropped_count"] == 1
    assert payload["total"] == 2
    tiny = harness.ok("recall", entity="people/p", budget_tokens=1)
    assert tiny["total"] == 0 and tiny["dropped_count"] == 3
    big = harness.ok("recall", entity="people/p", budget_tokens=10000)
    assert big["budget_tokens"] == 10000 and big["budget_used"] == 21
    assert big["dropped_count"] == 0


def test_budget_starves_results_after_facts(harness: VerbHarness) -> None:
    harness.page("notes/tea", "# Tea\nEverything about tea and teapots.")
    harness.ok("remember", fact="x" * 40, provenance="t", entity="people/p")
    payload = harness.ok("recall", entity="people/p", query="tea", budget_tokens=10)
    assert payload["results"] == [] and payload["dropped_count"] == 1
    assert payload["budget_used"] <= 10


def test_query_arm_is_keyword_only_without_embeddings(harness: VerbHarness) -> None:
    harness.page("companies/acme", "---\ntitle: Acme Rockets\n---\nAcme builds rockets.")
    payload = harness.ok("recall", query="Acme Rockets")
    assert payload["search_degraded"] == DEGRADED_KEYWORD_ONLY
    result = payload["results"][0]
    assert result["slug"] == "companies/acme"
    assert result["evidence"] == "exact_title_match"
    assert result["create_safety"] == "exists"
    assert result["provenance"] == "companies/acme"


def test_grep_filters_before_limit(harness: VerbHarness) -> None:
    harness.ok("remember", fact="needle here", provenance="t")
    for i in range(5):
        harness.ok("remember", fact=f"hay {i}", provenance="t")
    facts = harness.ok("recall", grep="NEEDLE", limit=2)["facts"]
    assert [f["fact"] for f in facts] == ["needle here"]

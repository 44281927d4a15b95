"""Hybrid ranking: RRF of keyword and vector arms, evidence, and honest degradation."""

from __future__ import annotations

from brainkeep.brain import Brain
from brainkeep.core.context import LOCAL
from brainkeep.core.fusion import PageFusion, PageRanking
from brainkeep.core.retrieval import ScoredId
from brainkeep.core.search import (
    DEGRADED_KEYWORD_ONLY,
    DEGRADED_NO_VECTORS,
    DEGRADED_PROVIDER_DOWN,
)

from .conftest import OpenBrain, SwitchableEmbedder, Verbs

PAGES = {
    "notes/tea": "---\ntitle: Drinks\n---\nOolong and sencha are my favourite teas; "
    "no coffee after noon.",
    "notes/car": "---\ntitle: Garage\n---\nThe hatchback needs new tyres before the winter trip.",
    "notes/kids": "---\ntitle: School run\n---\nMia's school starts at 8:15; "
    "pickup is at 3 on Fridays.",
    "people/alice-chen": "---\ntitle: Alice Chen\naliases: [Ali]\n---\nAlice Chen leads "
    "the billing migration and prefers written updates.",
    "projects/atlas": "---\ntitle: Project Atlas\n---\nAtlas moves invoices to the new "
    "ledger; the deadline is the end of March.",
}
PARAPHRASES = {
    "what beverages do I enjoy": "notes/tea",
    "my automobile requires maintenance": "notes/car",
    "when does my daughter finish classes": "notes/kids",
    # No word of it is in any page, stemmed or not ("moving" would stem to
    # Atlas's "moves" since the FTS tables stem, migration 0011).
    "who oversees switching our payment platform": "people/alice-chen",
}


def seed(brain: Brain) -> None:
    for slug, content in PAGES.items():
        brain.pages.put_page(slug, content)


def test_hybrid_beats_keyword_only_on_paraphrases(
    open_home: OpenBrain, embedder: SwitchableEmbedder, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    hybrid = open_home(embedder)
    seed(hybrid)
    keyword = open_home(None, home=tmp_path / "kw")
    seed(keyword)

    def top1(brain: Brain, query: str) -> str | None:
        results = brain.search.search(query, include_private=True, limit=5).results
        return results[0].slug if results else None

    hybrid_hits = sum(top1(hybrid, q) == gold for q, gold in PARAPHRASES.items())
    keyword_hits = sum(top1(keyword, q) == gold for q, gold in PARAPHRASES.items())
    assert hybrid_hits == len(PARAPHRASES)
    assert keyword_hits < hybrid_hits


def test_evidence_values_follow_the_signals_that_fired(brain: Brain) -> None:
    seed(brain)

    def evidence(query: str, slug: str) -> tuple[str, str]:
        for r in brain.search.search(query, include_private=True, limit=10).results:
            if r.slug == slug:
                return r.evidence, r.create_safety
        raise AssertionError(f"{slug} not found for {query!r}")

    assert evidence("Ali", "people/alice-chen") == ("alias_hit", "exists")
    assert evidence("Alice Chen", "people/alice-chen") == ("exact_title_match", "exists")
    assert evidence("what does Alice Chen prefer", "people/alice-chen") == (
        "exact_title_match",
        "exists",
    )
    assert evidence("Oolong and sencha are my favourite teas", "notes/tea") == (
        "high_vector_match",
        "exists",
    )
    assert evidence("invoices ledger deadline", "projects/atlas") == ("keyword_exact", "probable")
    assert evidence("what beverages do I enjoy", "notes/tea") == ("weak_semantic", "unknown")


def test_one_result_per_page_and_chunks_capped(brain: Brain) -> None:
    body = "\n\n".join(f"Paragraph {i}: the quarterly tea tasting notes, batch {i}. " * 6
                       for i in range(12))
    brain.pages.put_page("notes/long", f"---\ntitle: Tasting log\n---\n{body}")
    brain.pages.put_page("notes/short", "A short note about a tea tasting.")
    results = brain.search.search("tea tasting", include_private=True, limit=10).results
    assert sorted(r.slug for r in results) == ["notes/long", "notes/short"]


def test_fusion_is_rrf_with_k_60_and_a_per_page_cap() -> None:
    fusion = PageFusion(PageRanking(method="rrf", k=60, keyword_weight=1.0, vector_weight=1.0,
                                    title_weight=1.0, title_saturation=0.0, per_page=2))
    # Page 1 owns the first three chunks of the keyword list; only two count.
    fusion.add_keyword([ScoredId(11, 1, 9.0), ScoredId(12, 1, 8.0), ScoredId(13, 1, 7.0),
                        ScoredId(21, 2, 6.0)])
    fusion.add_vector([ScoredId(21, 2, 0.9), ScoredId(11, 1, 0.5)])
    fusion.add_pages([ScoredId(2, 2, 3.0)])
    pages = fusion.pages()
    assert pages[1].chunk_id == 11
    assert abs(pages[1].score - (1 / 61 + 1 / 62)) < 1e-12
    # Chunk 21 ranks 3rd among the capped keyword list, 1st in vector, page 2 first by title.
    assert abs(pages[2].score - (1 / 63 + 1 / 61 + 1 / 61)) < 1e-12
    assert pages[2].cosine == 0.9
    assert ScoredId(1, 1, 1.0).page_id == 1


def test_convex_fusion_keeps_score_margins_and_cuts_weak_neighbours() -> None:
    ranking = PageRanking(method="convex", keyword_weight=0.6, vector_weight=0.4,
                          title_weight=0.0, title_saturation=0.0, min_cosine=0.3)
    fusion = PageFusion(ranking)
    fusion.add_keyword([ScoredId(11, 1, 10.0), ScoredId(21, 2, 1.0)])
    fusion.add_vector([ScoredId(21, 2, 0.8), ScoredId(11, 1, 0.4), ScoredId(31, 3, 0.2)])
    fusion.add_pages([ScoredId(2, 2, 5.0)])  # weight 0: ignored
    pages = fusion.pages()
    assert abs(pages[1].score - (0.6 * 1.0 + 0.4 * 0.5)) < 1e-12
    assert abs(pages[2].score - (0.6 * 0.1 + 0.4 * 1.0)) < 1e-12
    assert 3 not in pages  # below min_cosine


def test_search_degraded_only_when_the_vector_arm_did_not_run(
    open_home: OpenBrain, embedder: SwitchableEmbedder, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    healthy = open_home(embedder)
    seed(healthy)
    payload = Verbs(healthy).ok("recall", query="what beverages do I enjoy")
    assert "search_degraded" not in payload
    assert payload["results"][0]["slug"] == "notes/tea"

    embedder.fail = True  # the provider goes down: degrade, never fail recall
    payload = Verbs(healthy).ok("recall", query="oolong")
    assert payload["search_degraded"] == DEGRADED_PROVIDER_DOWN
    assert payload["results"][0]["slug"] == "notes/tea"
    embedder.fail = False

    none = open_home(None, home=tmp_path / "none")
    seed(none)
    payload = Verbs(none).ok("recall", query="oolong")
    assert payload["search_degraded"] == DEGRADED_KEYWORD_ONLY
    assert Verbs(none).ok("search", query="tea")["search_degraded"] == DEGRADED_KEYWORD_ONLY

    # A provider configured after the pages were written: nothing to search yet.
    late = open_home(embedder, home=tmp_path / "none")
    assert Verbs(late).ok("recall", query="tea")["search_degraded"] == DEGRADED_NO_VECTORS


def test_entity_near_misses_are_keyword_suggestions(
    verbs: Verbs, embedder: SwitchableEmbedder
) -> None:
    """MEMORY_VERBS v1: a miss answers keyword near-misses; no query embedding is paid."""
    seed(verbs.brain)
    calls = embedder.calls
    payload = verbs.ok("entity", name="the person leading billing")
    assert payload["found"] is False
    assert payload["suggestions"][0]["slug"] == "people/alice-chen"
    assert embedder.calls == calls


def test_search_op_reports_hybrid_scores(verbs: Verbs) -> None:
    seed(verbs.brain)
    payload = verbs.ok("search", LOCAL, query="automobile maintenance")
    assert "search_degraded" not in payload
    assert payload["results"][0]["slug"] == "notes/car"
    assert payload["results"][0]["score"] > 0

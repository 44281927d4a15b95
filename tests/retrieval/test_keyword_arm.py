"""The keyword arm: rarest terms first within a row budget, and no stale term counts."""

from __future__ import annotations

from brainkeep.brain import Brain
from brainkeep.core.context import LOCAL, STDIO
from brainkeep.core.query import query_terms
from brainkeep.store.sqlite.keyword_index import KeywordIndex, KeywordPlan, keyword_plan

from .conftest import OpenBrain


def test_plan_ors_the_rarest_terms_within_the_budget() -> None:
    counts = {"billing": 900, "monarch": 40, "audit": 300, "zzz": 0}
    assert keyword_plan(["billing", "monarch", "audit", "zzz"], counts, budget=500) == (
        KeywordPlan('"monarch" OR "audit"', None)
    )
    # Small brains: everything fits, nothing is dropped but unknown terms.
    assert keyword_plan(["billing", "audit"], counts, budget=5000).fts == '"audit" OR "billing"'
    # Even the rarest term is too common: rank only its newest matches.
    assert keyword_plan(["billing"], counts, budget=100) == KeywordPlan('"billing"', 100)
    assert keyword_plan(["zzz"], counts, budget=1000).fts == ""


def test_query_terms_drop_stop_words_unless_nothing_is_left() -> None:
    assert query_terms("What did Alice say about the Q3 roadmap?").terms == (
        "alice", "say", "q3", "roadmap",
    )
    assert query_terms("who is it").terms == ("who", "is", "it")


def test_newest_bounds_the_rows_ranked(open_home: OpenBrain) -> None:
    brain: Brain = open_home(None)
    for i in range(5):
        brain.pages.put_page(f"notes/n{i}", f"Invoice note {i}: " + "invoice " * (5 - i))
    index = KeywordIndex(brain.store.db, "default")  # type: ignore[attr-defined]
    every = index.chunks(KeywordPlan('"invoice"', None), include_private=True, limit=10)
    newest = index.chunks(KeywordPlan('"invoice"', 2), include_private=True, limit=10)
    assert len(every) == 5 and len(newest) == 2
    assert {s.id for s in newest} == set(sorted(s.id for s in every)[-2:])


def test_a_new_word_is_searchable_at_once(open_home: OpenBrain) -> None:
    brain = open_home(None)
    # A first query caches document counts; a word absent then must not stay "absent".
    assert brain.facts.list_facts(STDIO, query="zebrafish aquarium") == []
    brain.facts.remember("The zebrafish aquarium needs a new filter.", "chat", LOCAL)
    found = brain.facts.list_facts(STDIO, query="zebrafish aquarium")
    assert [m.text for m in found] == ["The zebrafish aquarium needs a new filter."]
    brain.pages.put_page("notes/fish", "Zebrafish notes.")
    assert brain.search.search("zebrafish", include_private=False, limit=5).results

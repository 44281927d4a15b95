"""Stemmed keyword search, min-max fusion, the fused-score cut-off, feedback terms, heading rule."""

from __future__ import annotations

from brainkeep.brain import Brain
from brainkeep.core.embedding import embedding_text
from brainkeep.core.feedback import expansion_terms
from brainkeep.core.fusion import PageFusion, PageRanking
from brainkeep.core.query import QueryTerms
from brainkeep.core.retrieval import ScoredId
from brainkeep.store.sqlite.keyword_index import KeywordIndex
from brainkeep.store.sqlite.stems import TermStems

from .conftest import OpenBrain


def test_words_are_stemmed_exactly_as_fts5_indexes_them() -> None:
    stems = TermStems()
    assert stems.tokens(["running", "activities", "café", "foo_bar", "2023"]) == {
        "running": ("run",), "activities": ("activ",), "café": ("cafe",),
        "foo_bar": ("foo", "bar"), "2023": ("2023",),
    }
    assert stems.tokens(["running"]) == {"running": ("run",)}  # served from the cache
    plain = TermStems("unicode61 remove_diacritics 2")
    assert plain.tokens(["running"]) == {"running": ("running",)}


def test_the_planner_counts_and_keeps_stemmed_words(open_home: OpenBrain) -> None:
    brain: Brain = open_home(None)
    brain.pages.put_page("notes/easel", "She painted two canvases at the workshops.")
    brain.pages.put_page("notes/shoes", "New shoes for runners.")
    index = KeywordIndex(brain.store.db, "default")  # type: ignore[attr-defined]
    # Looked up unstemmed, "painting" has no vocabulary row and was dropped.
    assert index.term_doc_counts("chunk", ["painting", "workshop", "zebra"]) == {
        "painting": 1, "workshop": 1, "zebra": 0,
    }
    plan = index.plan("chunk", QueryTerms(("painting", "painted", "zebra"), row_budget=1000))
    assert plan.fts == '"painting"'  # one stem counted once, the absent word dropped
    found = brain.search.search("painting workshop", include_private=False, limit=5).results
    assert [r.slug for r in found] == ["notes/easel"]
    assert [r.slug for r in brain.search.search("runner", include_private=False,
                                                limit=5).results] == ["notes/shoes"]


def test_minmax_normalises_a_cut_list_by_its_worst_score() -> None:
    fusion = PageFusion(PageRanking(keyword_weight=0.5, vector_weight=0.5, title_weight=0.0,
                                    normalise="minmax"))
    fusion.add_keyword([ScoredId(11, 1, 8.0), ScoredId(21, 2, 4.0)])  # every match: floor 0
    fusion.add_vector([ScoredId(21, 2, 0.7), ScoredId(11, 1, 0.5), ScoredId(31, 3, 0.3)],
                      complete=False)  # cut at its limit: floor = its worst
    pages = fusion.pages()
    assert abs(pages[1].score - (0.5 * 1.0 + 0.5 * 0.5)) < 1e-9
    assert abs(pages[2].score - (0.5 * 0.5 + 0.5 * 1.0)) < 1e-9
    assert abs(pages[3].score) < 1e-9


def test_the_cutoff_drops_weak_tails_but_keeps_a_few(open_home: OpenBrain) -> None:
    brain: Brain = open_home(None)
    brain.pages.put_page("notes/target", "Kestrel kestrel kestrel nesting survey by the quarry.")
    for i in range(6):
        brain.pages.put_page(f"notes/filler{i}", f"A long note {i} that mentions a quarry once, "
                             "among many other words about walks, weather and lunch plans.")
    every = brain.search.search("kestrel quarry", include_private=False, limit=10).results
    assert every[0].slug == "notes/target"
    assert len(every) == 7  # cutoff_keep (7) results are always kept
    strict = brain.search.__class__(brain.store, brain.search.index, "default",
                                    ranking=PageRanking(cutoff=0.9, cutoff_keep=2))
    cut = strict.search("kestrel quarry", include_private=False, limit=10).results
    assert [r.slug for r in cut][:1] == ["notes/target"] and len(cut) == 2
    none = brain.search.__class__(brain.store, brain.search.index, "default",
                                  ranking=PageRanking(cutoff=0.0))
    assert len(none.search("kestrel quarry", include_private=False, limit=10).results) == 7


def test_feedback_terms_weigh_words_by_first_pass_score() -> None:
    docs = [("The pottery class made clay bowls, clay cups.", 2.0),
            ("A pottery workshop: glaze and clay.", 1.0),
            ("Lunch was soup.", 0.0)]
    assert expansion_terms(docs, ("pottery",), 2) == ("clay", "bowls")
    assert "the" not in expansion_terms(docs, ("pottery",), 20)
    assert "soup" not in expansion_terms(docs, ("pottery",), 20)  # score 0: no weight
    assert expansion_terms(docs, ("pottery",), 0) == ()


def test_the_title_heads_a_chunk_only_when_the_chunk_does_not_say_it() -> None:
    assert embedding_text("Met the vendor on Tuesday.", "Priya Shah") == (
        "Priya Shah\nMet the vendor on Tuesday."
    )
    # A turn that repeats its speaker and date gets no second copy.
    assert embedding_text("Caroline (8 May, 2023): I went to a support group.",
                          "Caroline, 8 May, 2023") == (
        "Caroline (8 May, 2023): I went to a support group."
    )
    assert embedding_text("Priya Shah joined.", "Priya Shah") == "Priya Shah joined."

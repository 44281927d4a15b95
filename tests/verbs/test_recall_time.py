"""Time-aware recall end to end: the real `recall` verb, both engines, a fixed clock.

The fake clock stands at Monday 15 June 2026 (tests/verbs/conftest.py), so
"last week" is 8-14 June 2026.
"""

from __future__ import annotations

import dataclasses

from tests.verbs.conftest import VerbHarness

# The old decision says the query's words more often, so on words alone it wins.
OLD = ("---\ntitle: Billing vendor, 2025\n---\n"
       "2025-11-03: we decided the billing vendor. Billing decided: Adyen for billing.\n")
NEW = "---\ntitle: Vendor call\n---\n2026-06-10: we decided the billing vendor is Stripe.\n"


def _seed(harness: VerbHarness) -> None:
    harness.page("notes/billing-2025", OLD)
    harness.page("notes/vendor-call", NEW)


def _slugs(payload: dict[str, object]) -> list[str]:
    results = payload["results"]
    assert isinstance(results, list)
    return [r["slug"] for r in results]


def test_a_time_phrase_boosts_pages_dated_in_its_window(harness: VerbHarness) -> None:
    _seed(harness)
    query = "what did we decide about the billing vendor last week"
    plain = dataclasses.replace(harness.brain.search, time_ranking=None)
    timed, harness.brain.search = harness.brain.search, plain
    try:
        before = harness.local("recall", query=query, limit=5)
    finally:
        harness.brain.search = timed
    # Without the boost the wordier old page leads and nothing is explained.
    assert _slugs(before)[0] == "notes/billing-2025"
    assert "explanation" not in before
    after = harness.local("recall", query=query, limit=5)
    assert _slugs(after)[0] == "notes/vendor-call"
    assert sorted(_slugs(after)) == sorted(_slugs(before))  # a boost: nothing hidden
    time = after["explanation"]["time"]
    assert time["window"] == {"phrase": "last week", "start": "2026-06-08",
                              "end": "2026-06-14", "any_year": False}
    assert time["applied"] == "boost"
    assert time["boosted_candidates"] == 1


def test_a_query_without_a_time_is_unchanged(harness: VerbHarness) -> None:
    _seed(harness)
    query = "what did we decide about the billing vendor"
    timed = harness.local("recall", query=query, limit=5)
    harness.brain.search = dataclasses.replace(harness.brain.search, time_ranking=None)
    plain = harness.local("recall", query=query, limit=5)
    assert timed == plain
    assert "explanation" not in timed


def test_an_ambiguous_phrase_leaves_recall_unchanged(harness: VerbHarness) -> None:
    _seed(harness)
    query = "billing vendor decided in 2025 or in 2026"
    timed = harness.local("recall", query=query, limit=5)
    harness.brain.search = dataclasses.replace(harness.brain.search, time_ranking=None)
    assert timed == harness.local("recall", query=query, limit=5)
    assert "explanation" not in timed

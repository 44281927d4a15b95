"""recall's facts arm with a query: ranked by the query, same fact objects, filters kept."""

from __future__ import annotations

from .conftest import Verbs

FACTS = [
    ("Mia's swimming lessons are on Wednesdays at five.", "people/mia"),
    ("Mia is allergic to cats.", "people/mia"),
    ("The car insurance renews in October.", None),
    ("Grandma's birthday is on the third of March.", "people/grandma"),
]


def seed(verbs: Verbs) -> dict[str, str]:
    ids = {}
    for text, entity in FACTS:
        params = {"fact": text, "provenance": "family chat"}
        if entity:
            params["entity"] = entity
        ids[text] = verbs.local("remember", **params)["id"]
    return ids


def test_query_ranks_facts_semantically_and_keeps_the_shape(verbs: Verbs) -> None:
    ids = seed(verbs)
    plain = verbs.ok("recall", entity="people/mia")["facts"][0]
    payload = verbs.ok("recall", query="when does my daughter go to the pool")
    facts = payload["facts"]
    assert facts[0]["fact_id"] == ids["Mia's swimming lessons are on Wednesdays at five."]
    assert list(facts[0]) == list(plain)  # every legacy field, same order
    assert payload["total"] == len(facts)
    # Without other filters only facts matching the query come back.
    assert ids["The car insurance renews in October."] not in {f["fact_id"] for f in facts}


def test_query_with_filters_reorders_but_never_hides(verbs: Verbs) -> None:
    ids = seed(verbs)
    facts = verbs.ok("recall", entity="people/mia", query="pets and allergies")["facts"]
    assert [f["fact_id"] for f in facts] == [
        ids["Mia is allergic to cats."],
        ids["Mia's swimming lessons are on Wednesdays at five."],
    ]


def test_keyword_only_brains_rank_facts_by_bm25(open_home, tmp_path) -> None:  # type: ignore[no-untyped-def]
    verbs = Verbs(open_home(None, home=tmp_path / "kw"))
    ids = seed(verbs)
    facts = verbs.ok("recall", query="insurance renewal")["facts"]
    assert [f["fact_id"] for f in facts] == [ids["The car insurance renews in October."]]

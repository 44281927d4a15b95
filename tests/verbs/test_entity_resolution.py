"""Which page a fact's `entity` name lands on (issue 22 items 1-2), on both engines.

remember and recall resolve `entity` in one core place
(core/entity_resolution.py): slug, title, alias, then a unique strong
candidate (a first name, a one-letter typo of a long name); an ambiguous or
unknown name is filed under its own slug and the response says so.
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.context import LOCAL
from brainkeep.ops.response_schemas import RESPONSE_SCHEMAS
from brainkeep.ops.schema_check import validate

from .conftest import VerbHarness

ALICE = "---\ntitle: Alice Chen\ntype: person\naliases: [Ali Chen]\n---\nCTO of Northwind.\n"
NORTHWIND = "---\ntitle: Northwind Robotics\ntype: company\n---\nWarehouse robots.\n"


def seeded(harness: VerbHarness) -> VerbHarness:
    harness.page("people/alice-chen", ALICE)
    harness.page("companies/northwind-robotics", NORTHWIND)
    return harness


def remember(harness: VerbHarness, entity: str, fact: str = "likes Lisbon") -> dict[str, Any]:
    payload = harness.ok("remember", fact=f"{entity} {fact}", provenance="chat", entity=entity)
    assert validate(payload, RESPONSE_SCHEMAS["remember"]) == [], payload
    return payload


def test_a_first_name_lands_on_the_only_page_it_starts(harness: VerbHarness) -> None:
    seeded(harness)
    saved = remember(harness, "Alice")
    assert saved["entity_slug"] == "people/alice-chen"
    res = saved["entity_resolution"]
    assert (res["input"], res["slug"], res["via"]) == ("Alice", "people/alice-chen", "candidate")
    assert (res["matched"], res["reason"]) == ("Alice Chen", "leading_part")
    assert "people/alice-chen" in res["note"] and "Alice Chen" in res["note"]
    # ... so it is where Alice's facts are read: recall by her full name, and her card.
    recalled = harness.ok("recall", entity="Alice Chen")
    assert [f["fact"] for f in recalled["facts"]] == ["Alice likes Lisbon"]
    card = harness.ok("entity", name="Alice Chen")["card"]
    assert card["active_fact_count"] == 1
    # A company's first word too, and a first name typed without its accent.
    assert remember(harness, "Northwind")["entity_slug"] == "companies/northwind-robotics"
    harness.page("people/zoe-okafor", "---\ntitle: Zoë Okafor\n---\nPartner.\n")
    assert remember(harness, "Zoe")["entity_slug"] == "people/zoe-okafor"
    assert remember(harness, "ZOË")["entity_slug"] == "people/zoe-okafor"


def test_recall_by_the_first_name_reads_the_same_page(harness: VerbHarness) -> None:
    seeded(harness)
    remember(harness, "people/alice-chen")
    recalled = harness.ok("recall", entity="Alice")
    assert validate(recalled, RESPONSE_SCHEMAS["recall"]) == []
    assert recalled["total"] == 1
    assert recalled["entity_resolution"]["slug"] == "people/alice-chen"
    assert recalled["entity_resolution"]["via"] == "candidate"


def test_exact_names_report_their_tier_without_a_note(harness: VerbHarness) -> None:
    seeded(harness)
    # "alice-chen" normalizes to the title, which outranks a slug suffix (frozen precedence).
    for name, via in (("people/alice-chen", "slug"), ("alice-chen", "title"),
                      ("Alice Chen", "title"), ("ali chen", "alias")):
        res = remember(harness, name, fact=f"fact via {via} {name}")["entity_resolution"]
        assert (res["slug"], res["via"]) == ("people/alice-chen", via), name
        assert "note" not in res and "matched" not in res


def test_a_one_letter_typo_of_a_long_name_lands(harness: VerbHarness) -> None:
    seeded(harness)
    saved = remember(harness, "Alcie Chen")
    assert saved["entity_slug"] == "people/alice-chen"
    assert saved["entity_resolution"]["reason"] == "typo"
    assert remember(harness, "Northwind Robtoics")["entity_slug"] == (
        "companies/northwind-robotics")


def test_new_names_are_never_glued_to_a_look_alike(harness: VerbHarness) -> None:
    seeded(harness)
    for name, slug in (("Alicia", "alicia"), ("Alicia Chen", "alicia-chen"),
                       ("Alice Cheng", "alice-cheng"), ("Alice Chan", "alice-chan"),
                       ("Chen", "chen"), ("Bob", "bob"), ("Northwind Capital",
                                                           "northwind-capital")):
        res = remember(harness, name)["entity_resolution"]
        assert (res["slug"], res["via"]) == (slug, "new"), (name, res)
        assert res["note"].startswith(f"no entity named '{name}'"), res
        assert f"filed under new entity '{slug}'" in res["note"]
    # A look-alike sharing a word is offered as "did you mean", never taken.
    res = remember(harness, "Alice Cheng", fact="again")["entity_resolution"]
    assert res["candidates"] == [{"slug": "people/alice-chen", "title": "Alice Chen"}]
    assert "did you mean people/alice-chen (Alice Chen)?" in res["note"]
    assert harness.ok("entity", name="Alice Chen")["card"]["active_fact_count"] == 0


def test_an_ambiguous_first_name_is_filed_under_its_own_slug(harness: VerbHarness) -> None:
    seeded(harness)
    harness.page("people/alice-park", "---\ntitle: Alice Park\n---\nDesigner.\n")
    saved = remember(harness, "Alice")
    res = saved["entity_resolution"]
    assert (saved["entity_slug"], res["via"]) == ("alice", "ambiguous")
    assert {c["slug"] for c in res["candidates"]} == {"people/alice-chen", "people/alice-park"}
    assert "could mean" in res["note"] and "pass the slug" in res["note"]
    recalled = harness.ok("recall", entity="Alice")
    assert recalled["entity_resolution"]["via"] == "ambiguous"
    assert [f["fact"] for f in recalled["facts"]] == ["Alice likes Lisbon"]
    assert "showing only facts filed under 'alice'" in recalled["entity_resolution"]["note"]


def test_two_pages_one_typo_away_are_ambiguous(harness: VerbHarness) -> None:
    harness.page("people/lars-andersen", "---\ntitle: Lars Andersen\n---\n")
    harness.page("people/lars-anderson", "---\ntitle: Lars Anderson\n---\n")
    # "Andersn" is one dropped letter from both: no page is picked.
    res = remember(harness, "Lars Andersn")["entity_resolution"]
    assert (res["via"], res["slug"]) == ("ambiguous", "lars-andersn")
    assert {c["slug"] for c in res["candidates"]} == {"people/lars-andersen",
                                                      "people/lars-anderson"}
    res = remember(harness, "Lars Andresen")["entity_resolution"]
    assert (res["via"], res["slug"]) == ("candidate", "people/lars-andersen")


def test_a_typed_word_that_is_a_real_name_elsewhere_is_no_typo(harness: VerbHarness) -> None:
    harness.page("people/kirsten-berg", "---\ntitle: Kirsten Berg\n---\n")
    harness.page("people/kristen-moss", "---\ntitle: Kristen Moss\n---\n")
    # "Kristen Berg" is one swap from "Kirsten Berg", but Kristen is a name this brain knows.
    res = remember(harness, "Kristen Berg")["entity_resolution"]
    assert (res["via"], res["slug"]) == ("new", "kristen-berg")


def test_an_explicit_slug_is_kept_with_a_suggestion(harness: VerbHarness) -> None:
    seeded(harness)
    saved = remember(harness, "people/alice")
    res = saved["entity_resolution"]
    assert (saved["entity_slug"], res["via"]) == ("people/alice", "new")
    assert res["candidates"][0]["slug"] == "people/alice-chen"


def test_recall_says_when_the_name_matched_no_page(harness: VerbHarness) -> None:
    seeded(harness)
    recalled = harness.ok("recall", entity="Bob Smith")
    assert recalled["total"] == 0
    res = recalled["entity_resolution"]
    assert (res["slug"], res["via"], res["candidates"]) == ("bob-smith", "new", [])
    assert res["note"] == ("no entity named 'Bob Smith' — showing only facts filed under "
                           "'bob-smith'")
    near = harness.ok("recall", entity="Alice Cheng")["entity_resolution"]
    assert "did you mean people/alice-chen (Alice Chen)?" in near["note"]
    assert "entity_resolution" not in harness.ok("recall")  # no entity, no field


def test_private_pages_are_candidates_only_for_the_local_caller(harness: VerbHarness) -> None:
    harness.page("people/dmitri-volkov",
                 "---\ntitle: Dmitri Volkov\nvisibility: private\n---\nHiring notes.\n")
    remote = remember(harness, "Dmitri")  # the harness caller is a remote stdio client
    assert remote["entity_slug"] == "dmitri"
    assert remote["entity_resolution"]["candidates"] == []
    assert "volkov" not in remote["entity_resolution"]["note"]
    local = harness.local("remember", fact="Dmitri starts in May", provenance="hr",
                          entity="Dmitri", visibility="private")
    assert local["entity_slug"] == "people/dmitri-volkov"
    assert harness.ok("recall", LOCAL, entity="Dmitri Volkov")["total"] == 1


def test_remember_without_an_entity_has_no_resolution(harness: VerbHarness) -> None:
    saved = harness.ok("remember", fact="the sky is blue", provenance="chat")
    assert saved["entity_slug"] is None and "entity_resolution" not in saved


def test_the_same_fact_by_another_name_is_a_duplicate(harness: VerbHarness) -> None:
    seeded(harness)
    first = remember(harness, "Alice Chen", fact="likes tea")
    again = harness.ok("remember", fact="Alice Chen likes tea", provenance="chat",
                       entity="Alice")
    assert (again["status"], again["id"]) == ("duplicate", first["id"])


def test_a_word_in_too_many_titles_is_never_guessed(harness: VerbHarness) -> None:
    # The candidate read ranks a bounded number of title matches; past it, it
    # cannot prove that only one page starts with the name, so it picks none.
    for i in range(110):
        harness.page(f"notes/review-{i}", f"---\ntitle: Review of the harbor {i}\n---\n")
    harness.page("companies/harbor-freight", "---\ntitle: Harbor Freight\n---\n")
    res = remember(harness, "Harbor")["entity_resolution"]
    assert res["slug"] == "harbor" and res["via"] in ("ambiguous", "new")
    harness.page("companies/lantern-health", "---\ntitle: Lantern Health\n---\n")
    assert remember(harness, "Lantern")["entity_slug"] == "companies/lantern-health"

"""entity: resolution precedence, the card, misses, zero LLM."""

from __future__ import annotations

from .conftest import VerbHarness

ADA = """---
title: Ada Lovelace
type: person
aliases: [Countess of Lovelace, "Ada L."]
works_at: companies/analytical-engines
advises: [companies/babbage-labs, projects/note-g]
---
# Ada Lovelace
Ada wrote the first published algorithm. She worked with [[people/charles-babbage]].

## Timeline
- 2026-06-01: Presented Note G
- 2020-01-01: Old news
"""


def test_card_for_an_alias(harness: VerbHarness) -> None:
    harness.page("people/ada-lovelace", ADA)
    harness.page(
        "people/charles-babbage",
        "---\ntitle: Charles Babbage\ncolleague_of: people/ada-lovelace\n---\n",
    )
    harness.ok("remember", fact="Will send the draft Friday", provenance="t",
               entity="people/ada-lovelace", kind="commitment")
    harness.ok("remember", fact="Likes tea", provenance="t", entity="people/ada-lovelace")
    payload = harness.ok("entity", name="countess of LOVELACE")
    assert payload["found"] is True and isinstance(payload["latency_ms"], int)
    card = payload["card"]
    assert card["entity"] == {"slug": "people/ada-lovelace", "title": "Ada Lovelace",
                              "type": "person"}
    assert card["aka"] == ["Ada L.", "Countess of Lovelace"]
    assert card["summary"] == "Ada wrote the first published algorithm."
    assert card["last_touched"]["last_timeline_date"] == "2026-06-01"
    assert card["open_threads"] == [
        {"kind": "commitment", "text": "Will send the draft Friday",
         "date": card["open_threads"][0]["date"]},
        {"kind": "recent_event", "text": "Presented Note G", "date": "2026-06-01"},
    ]
    out = [(e["type"], e["slug"]) for e in card["edges"] if e["direction"] == "out"]
    assert out == [("advises", "companies/babbage-labs"), ("advises", "projects/note-g"),
                   ("works_at", "companies/analytical-engines")]
    assert {"type": "colleague_of", "direction": "in", "slug": "people/charles-babbage",
            "context": None} in card["edges"]
    assert all(e["type"] != "mentions" for e in card["edges"])
    assert card["backlink_count"] == 1
    assert card["active_fact_count"] == 2


def test_precedence_alias_beats_title_beats_slug(harness: VerbHarness) -> None:
    harness.page("people/mercury", "---\ntitle: Freddie\n---\n")
    harness.page("planets/mercury", "---\ntitle: Mercury\n---\n")
    harness.page("elements/hg", "---\ntitle: Quicksilver\naliases: [Mercury]\n---\n")
    payload = harness.ok("entity", name="Mercury")
    assert payload["card"]["entity"]["slug"] == "elements/hg"
    runners = [s["slug"] for s in payload["suggestions"]]
    assert runners == ["planets/mercury", "people/mercury"]
    assert all(s["create_safety"] == "exists" for s in payload["suggestions"])


def test_ties_break_on_most_recently_touched(harness: VerbHarness) -> None:
    harness.page("people/sam-a", "---\ntitle: Sam\n---\n")
    harness.time.advance(seconds=5)
    harness.page("people/sam-b", "---\ntitle: Sam\n---\n")
    assert harness.ok("entity", name="Sam")["card"]["entity"]["slug"] == "people/sam-b"


def test_slug_and_suffix_resolve(harness: VerbHarness) -> None:
    harness.page("companies/acme-example", "# Acme\n")
    assert harness.ok("entity", name="companies/acme-example")["found"]
    assert harness.ok("entity", name="acme-example")["card"]["entity"]["slug"] == (
        "companies/acme-example"
    )


def test_miss_is_not_an_error(harness: VerbHarness) -> None:
    harness.page("projects/rocket", "---\ntitle: Rocket project\n---\nWe build a rocket engine.")
    payload = harness.ok("entity", name="rocket engine builders")
    assert payload["found"] is False and "card" not in payload
    assert payload["suggestions"][0]["slug"] == "projects/rocket"
    # "builders" is on no page: a weak match, so creating a new page may be right.
    assert payload["suggestions"][0]["create_safety"] == "unknown"
    # Every term of the name is on the page: probably the same thing, do not create it.
    near = harness.ok("entity", name="rocket engine")
    assert near["found"] is False
    assert [(s["slug"], s["create_safety"]) for s in near["suggestions"]] == [
        ("projects/rocket", "probable")]
    assert harness.ok("entity", name="zzz-nothing")["suggestions"] == []


def test_caps_on_threads_and_edges(harness: VerbHarness) -> None:
    links = "\n".join(f"rel{i}: companies/c{i}" for i in range(15))
    harness.page("people/busy", f"---\ntitle: Busy\n{links}\n---\n")
    for i in range(5):
        harness.ok("remember", fact=f"promise {i}", provenance="t", entity="people/busy",
                   kind="commitment")
    card = harness.ok("entity", name="people/busy")["card"]
    assert len(card["open_threads"]) == 3 and len(card["edges"]) == 10


def test_zero_llm(harness: VerbHarness) -> None:
    class ExplodingChat:
        def complete(self, *args: object, **kwargs: object) -> None:
            raise AssertionError("entity must not call an LLM")

    harness.brain.chat = ExplodingChat()
    harness.page("people/ada-lovelace", ADA)
    assert harness.ok("entity", name="Ada Lovelace")["found"] is True

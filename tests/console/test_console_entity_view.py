"""The entity page as a person reads it, in process (the console's ASGI app on a real brain).

Before: facts came after the card and the page text, without provenance or
date, forgotten ones hidden for good; the page text was raw markdown with
dead ``[[wikilinks]]``; times were ``2026-12-01T11:42:26.106227Z``; and a
link to an entity without a page ended on a 404.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from console_support import call_as
from starlette.testclient import TestClient

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.console.app import build_console_app
from brainkeep.core.context import LOCAL
from brainkeep.core.memory import writes
from brainkeep.core.tokens import TokenService
from brainkeep.ops.registry import open_dispatcher
from brainkeep.ops.usage import UsageEvent, UsageLog, usage_timestamp
from tests.http.http_support import make_home

KEY = "k" * 43
DEE = "people/dee-example"
EVE = "people/eve-example"  # linked from Dee's page, has a fact, has no page
RAW_TS = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z")
DEE_PAGE = f"""---
title: Dee Example
type: person
---
# Dee Example

Dee runs **the lab** with [[{EVE}|Eve]] and writes *often*.
<script>alert("page")</script> [click](javascript:alert(1)) [site](https://example.com/dee)

## Projects

- the [[companies/acme]] rocket
- `cargo build`
"""


@dataclass(frozen=True)
class Facts:
    active: str
    forgotten: str
    superseded: str
    replacement: str
    expired: str
    eve: str


def _seed(home: Path) -> Facts:
    call_as(home, "put_page", {"slug": DEE, "content": DEE_PAGE})

    def remember(text: str, provenance: str, entity: str = DEE, **extra: str) -> str:
        return str(call_as(home, "remember", {"fact": text, "provenance": provenance,
                                              "entity": entity, **extra})["id"])

    facts = Facts(
        active=remember("Dee leads the robotics lab", "call 2026-06-12"),
        forgotten=remember("Dee lives in Oslo", "old CV"),
        superseded=remember("Dee drives a red van", "chat 2026-05-01"),
        replacement=remember("Dee drives a green bicycle", "chat 2026-06-01"),
        expired=remember("Dee is at the conference", "calendar", ttl="1m"),
        eve=remember("Eve keeps the lab's keys", "onboarding notes", entity=EVE),
    )
    call_as(home, "forget", {"id": facts.forgotten, "reason": "moved to Bergen"})
    brain = open_brain(load_settings(home, env={}))
    TokenService(brain.store, brain.clock).create("dee-agent", "read", expires="30d")
    log = UsageLog(brain.settings.usage_path)  # Usage and Live read what the dispatcher writes
    for minutes, verb in ((3, "recall"), (2, "entity")):
        log.record(UsageEvent(ts=usage_timestamp(datetime.now(UTC) - timedelta(minutes=minutes)),
                              brain_id="b", verb=verb, surface="full", transport="http",
                              remote=True, ok=True, latency_ms=4, source_id="default",
                              token_name="dee-agent"))
    try:  # the supersession remember() makes when the vector says "same claim"
        with brain.store.transaction():
            old = brain.store.get_memory(int(facts.superseded))
            assert old is not None
            writes.expire(brain.store, old, brain.clock.now_ts(),
                          f"superseded by fact #{facts.replacement}", actor="local",
                          superseded_by=int(facts.replacement))
    finally:
        brain.close()
    return facts


@pytest.fixture(scope="module")
def seeded_dee(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Facts]:
    home = make_home(tmp_path_factory.mktemp("entity-view") / "home")
    return home, _seed(home)


@pytest.fixture(scope="module")
def brain(seeded_dee: tuple[Path, Facts]) -> Iterator[Brain]:
    opened = open_brain(load_settings(seeded_dee[0], env={}))
    real = opened.clock.now_fn
    opened.clock.now_fn = lambda: real() + timedelta(hours=2)  # the 1-minute ttl has run out
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="module")
def local(brain: Brain) -> Iterator[TestClient]:
    app = build_console_app(brain, open_dispatcher(brain, "full"), local_caller=LOCAL,
                            local_token=KEY)
    with TestClient(app, base_url="http://127.0.0.1", follow_redirects=False) as client:
        assert client.get(f"/?token={KEY}").status_code == 200  # the key buys the cookie
        yield client


@pytest.fixture
def facts(seeded_dee: tuple[Path, Facts]) -> Facts:
    return seeded_dee[1]


def _row(page: str, fact_id: str) -> str:
    match = re.search(rf'<tr id="fact-{fact_id}"[^>]*>(.*?)</tr>', page, re.S)
    assert match, f"fact #{fact_id} is not on the page"
    return match.group(0)


def _visible_text(page: str) -> str:
    page = re.sub(r'<pre class="payload">.*?</pre>', "", page, flags=re.S)  # raw JSON, on purpose
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_facts_come_first_with_provenance_time_and_status(local: TestClient,
                                                          facts: Facts) -> None:
    page = local.get(f"/entities/{DEE}").text
    assert page.index('id="facts"') < page.index('id="page-text"') < page.index('id="card-h"')
    row = _row(page, facts.active)
    assert "Dee leads the robotics lab" in row and "call 2026-06-12" in row  # provenance
    assert 'data-status="active"' in row and ">active<" in row
    when = re.search(r'<time datetime="([^"]+)" title="([^"]+)">([^<]+)</time>', row)
    assert when is not None and RAW_TS.fullmatch(when.group(1))
    assert when.group(3) == "2 hours ago"  # the brain's clock is two hours on
    assert when.group(2).endswith(" UTC")


def test_forgotten_facts_are_behind_a_toggle(local: TestClient, facts: Facts) -> None:
    hidden = local.get(f"/entities/{DEE}").text
    for fact_id in (facts.forgotten, facts.superseded, facts.expired):
        assert f'id="fact-{fact_id}"' not in hidden
    toggle = re.search(r'<a id="forgotten-toggle" href="([^"]+)">Show forgotten</a>', hidden)
    assert toggle is not None and "3 forgotten, expired or superseded" in hidden
    shown = local.get(html.unescape(toggle.group(1))).text
    assert 'data-status="forgotten"' in _row(shown, facts.forgotten)
    assert "moved to Bergen" in _row(shown, facts.forgotten)  # the reason
    superseded = _row(shown, facts.superseded)
    assert 'data-status="superseded"' in superseded
    assert f'href="/memories/{facts.replacement}"' in superseded
    assert 'data-status="expired"' in _row(shown, facts.expired)
    assert 'data-status="active"' in _row(shown, facts.replacement)
    assert re.search(r'<a id="forgotten-toggle" href="/entities/people/dee-example">'
                     r"Hide forgotten</a>", shown)
    # The other view switches keep the toggle (and the toggle keeps the hop count).
    assert "hops=2&amp;forgotten=1" in shown
    two_hops = local.get(f"/entities/{DEE}?hops=2").text
    assert 'href="/entities/people/dee-example?hops=2&amp;forgotten=1">Show forgotten' \
        in two_hops


def test_page_text_is_markdown_rendered_safely_with_live_wikilinks(local: TestClient) -> None:
    page = local.get(f"/entities/{DEE}").text
    text = page.split('<div class="prose">', 1)[1].split("</div>", 1)[0]
    assert "<strong>the lab</strong>" in text and "<em>often</em>" in text
    assert f'<a class="wikilink" href="/entities/{EVE}">Eve</a>' in text
    assert '<a class="wikilink" href="/entities/companies/acme">companies/acme</a>' in text
    assert "<h4>Projects</h4>" in text and "<li><code>cargo build</code></li>" in text
    assert "<script" not in page and "&lt;script&gt;" in text
    assert "javascript:" not in re.findall(r'href="([^"]*)"', page).__str__()
    assert 'href="https://example.com/dee"' in text
    assert "[[" not in text  # no dead wikilink left
    assert "<h3>Dee Example</h3>" not in text  # the title is the page's <h1> already


def test_an_entity_without_a_page_shows_its_facts(local: TestClient, facts: Facts) -> None:
    answer = local.get(f"/entities/{EVE}")
    assert answer.status_code == 200, answer.text[:500]
    page = answer.text
    assert 'id="no-page"' in page and f"brainkeep put {EVE}" in page
    assert "Eve keeps the lab&#39;s keys" in _row(page, facts.eve)
    assert "onboarding notes" in _row(page, facts.eve)
    assert f'href="/entities/{DEE}"' in page  # mentioned by Dee's page
    assert "<svg" not in page  # no page: no card and no picture


def test_an_entity_nobody_knows_is_still_a_404_with_advice(local: TestClient) -> None:
    answer = local.get("/entities/people/nobody-at-all")
    assert answer.status_code == 404
    assert "brainkeep put people/nobody-at-all" in html.unescape(answer.text)


PAGES = ["/", "/entities", f"/entities/{DEE}?forgotten=1", f"/entities/{EVE}",
         "/memories?expired=1", "/memories/{forgotten}", "/memories/{superseded}", "/audit",
         "/access", "/usage", "/live"]


@pytest.mark.parametrize("path", PAGES)
def test_no_page_shows_a_raw_timestamp(local: TestClient, facts: Facts, path: str) -> None:
    answer = local.get(path.format(forgotten=facts.forgotten, superseded=facts.superseded))
    assert answer.status_code == 200, answer.text[:500]
    assert RAW_TS.findall(_visible_text(answer.text)) == []
    assert "<time datetime=" in answer.text or path == "/usage"  # Usage: charts and counts

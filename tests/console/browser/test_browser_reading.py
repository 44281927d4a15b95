"""What a person sees: the entity page (facts first, the toggle, readable graph labels,
rendered page text, page-less entities) and Usage split by caller kind, in Chromium.

docs/console.md shows three of the screenshots, copied to docs/images/console/:
``entity-reading-forgotten-desktop`` (entity.png), ``entity-reading-graph-desktop``
(entity-graph.png) and ``usage-kinds-desktop`` (usage.png).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from browser_support import mcp_call, no_horizontal_scroll
from console_support import Seeded, UiProc, call_as, create_token
from playwright.sync_api import Page, expect

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL
from brainkeep.ops.registry import open_dispatcher
from tests.http.http_support import ServerProc

Shot = Callable[[Page, str], Path]
FAY = "people/fay-example"
GUS = "people/gus-example"  # no page: only a fact and Fay's link
RAW_TS = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
FAY_PAGE = f"""---
title: Fay Example
type: person
summary: Fay runs the **telescope** project.
---
# Fay Example

Fay runs the telescope project at [[companies/acme|Acme]] with [[{GUS}|Gus]].
She prefers *written* updates over calls; see [the plan](https://example.com/plan).

## Working with Fay

- Send the weekly summary on **Fridays**
- Book rooms with `calendar@acme`
- Ask [[people/ada-example]] about the optics

> "Measure twice, observe once."
"""


@pytest.fixture(scope="module")
def fay(seeded: Seeded) -> dict[str, str]:
    """Fay's page and facts in org-a (the tenant of the `ui` fixture): two active, one forgotten."""
    call_as(seeded.home, "put_page", {"slug": FAY, "content": FAY_PAGE}, org="org-a")

    def remember(text: str, provenance: str, entity: str = FAY) -> str:
        return str(call_as(seeded.home, "remember", {
            "fact": text, "provenance": provenance, "entity": entity}, org="org-a")["id"])

    facts = {
        "office": remember("Fay works from the Lisbon office", "HR sheet 2026-05"),
        "old": remember("Fay leads the radio project", "org chart 2025"),
        "tea": remember("Fay takes her tea with lemon", "chat 2026-06-12"),
        "gus": remember("Gus maintains the telescope mount", "maintenance log", GUS),
    }
    call_as(seeded.home, "forget", {"id": facts["old"], "reason": "moved to telescope"},
            org="org-a")
    return facts


LABEL_PX = """() => [...document.querySelectorAll('svg.graph text.label')].map(t =>
    parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)"""


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_entity_page_facts_first_readable_graph_and_toggle(
        phone: bool, fay: dict[str, str], ui: UiProc, open_page: Callable[..., Page],
        shot: Shot) -> None:
    page = open_page(phone=phone, ui=ui)
    page.goto(f"{ui.base}/entities/{FAY}")
    facts, text = page.locator("#facts"), page.locator("#page-text")
    expect(facts).to_contain_text("Fay takes her tea with lemon")
    facts_box, text_box = facts.bounding_box(), text.bounding_box()
    assert facts_box is not None and text_box is not None
    assert facts_box["y"] < text_box["y"]  # facts above the page text
    assert facts_box["y"] < page.viewport_size["height"] / 2  # type: ignore[index]
    row = page.locator(f"#fact-{fay['tea']}")
    expect(row).to_contain_text("chat 2026-06-12")  # provenance
    expect(row.locator("time")).to_have_attribute("datetime", re.compile(r"^\d{4}-.*Z$"))
    assert not RAW_TS.search(row.inner_text())
    sizes = page.evaluate(LABEL_PX)
    assert sizes and min(sizes) >= 11, f"graph labels render at {sizes} px"
    if phone:
        assert no_horizontal_scroll(page)
    saved = shot(page, f"entity-reading-{'phone' if phone else 'desktop'}")
    if not phone:  # the neighbourhood alone, for docs/console.md
        graph = page.locator('section[aria-labelledby="graph-h"]')
        graph.screenshot(path=str(saved.with_name("entity-reading-graph-desktop.png")))

    forgotten = page.locator(f"#fact-{fay['old']}")
    expect(forgotten).to_have_count(0)
    page.click("#forgotten-toggle")
    page.wait_for_url("**forgotten=1**")
    expect(forgotten).to_be_visible()
    expect(forgotten.locator(".tag.status")).to_have_text("forgotten")
    expect(forgotten).to_contain_text("moved to telescope")
    if not phone:
        shot(page, "entity-reading-forgotten-desktop")
    page.click("#forgotten-toggle")
    page.wait_for_url(re.compile(r"/entities/people/fay-example$"))
    expect(forgotten).to_have_count(0)


def test_page_text_is_rendered_and_a_wikilink_opens_a_pageless_entity(
        fay: dict[str, str], ui: UiProc, open_page: Callable[..., Page], shot: Shot) -> None:
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/entities/{FAY}")
    prose = page.locator("#page-text .prose")
    expect(prose.locator("strong", has_text="Fridays")).to_be_visible()
    expect(prose.locator("li code")).to_have_text("calendar@acme")
    expect(prose.locator("blockquote")).to_contain_text("Measure twice")
    assert "[[" not in prose.inner_text() and "**" not in prose.inner_text()
    prose.locator("a.wikilink", has_text="Gus").click()
    page.wait_for_url(f"**/entities/{GUS}")
    expect(page.locator("main h1")).to_contain_text("no page")
    expect(page.locator(f"#fact-{fay['gus']}")).to_contain_text(
        "Gus maintains the telescope mount")
    expect(page.locator("main")).to_contain_text(f"brainkeep put {GUS}")
    page.locator(f'main a[href$="/entities/{FAY}"]').first.click()  # mentioned by Fay
    expect(page.locator("main h1")).to_contain_text("Fay Example")


def test_usage_gives_each_caller_kind_its_own_rates(
        seeded: Seeded, ui: UiProc, remote: ServerProc, open_page: Callable[..., Page],
        shot: Shot) -> None:
    secret = create_token(seeded.home, "kinds-agent", "read", org="org-a")
    for query in ("tea", "rockets", "telescope"):
        assert mcp_call(remote.url, secret, "recall", {"query": query}).status_code == 200
    mcp_call(remote.url, secret, "entity", {"name": "people/ada-example"})
    brain = open_brain(load_settings(seeded.home, env={}))
    try:  # the CLI's own path (the dispatcher with the usage log): a person's typos
        cli = open_dispatcher(brain, "full")
        for typo in ("99999991", "99999992"):
            assert cli.call("forget", {"id": typo}, LOCAL).is_error
        cli.call("entity", {"name": "Ada Exmaple Smith"}, LOCAL)
    finally:
        brain.close()
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/usage?days=1")
    kinds = page.locator("#kinds")
    expect(kinds.locator('tr[data-kind="cli"] th')).to_contain_text("Local CLI")
    expect(kinds.locator('tr[data-kind="http"] th')).to_have_text("MCP over HTTP, token")
    cli_rate = kinds.locator('tr[data-kind="cli"] td.error-rate').inner_text()
    assert float(cli_rate.rstrip("%")) > 0  # the typos count against the shell ...
    expect(page.locator('#chart-errors g.series[data-series^="Local CLI"]')).to_be_attached()
    expect(page.locator('#chart-errors g.series[data-series="MCP over HTTP, token"]')) \
        .to_be_attached()  # ... and each kind is its own line
    shot(page, "usage-kinds-desktop")

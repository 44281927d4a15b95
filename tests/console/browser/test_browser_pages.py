"""Every page in a real browser at 1280×800 and 390×844, plus search, entity and forget flows.

Screenshots of each page at both sizes are saved as test artifacts
(``test-artifacts/console/``; see conftest.py).
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from browser_support import no_horizontal_scroll
from console_support import Seeded, UiProc, call_as
from playwright.sync_api import Page, expect

from brainkeep.console.server import redirect_file

Shot = Callable[[Page, str], Path]

# (artifact name, path, text the page's heading holds)
PAGES = [
    ("home", "/", None),
    ("entities", "/entities", "Pages"),
    ("entity", "/entities/people/ada-example", "Ada Example"),
    ("memories", "/memories", "Memories"),
    ("memory", "/memories/{tea}", "Fact #"),
    ("search", "/search?q=Acme+rockets", "Search"),
    ("audit", "/audit", "Audit"),
    ("usage", "/usage", "Usage"),
    ("access", "/access", "Access"),
    ("live", "/live", "Live activity"),
]


@pytest.mark.parametrize(("name", "path", "heading"), PAGES, ids=[p[0] for p in PAGES])
def test_page_reads_at_desktop_and_phone_width(
        name: str, path: str, heading: str | None, seeded: Seeded, ui: UiProc,
        open_page: Callable[..., Page], shot: Shot) -> None:
    url = ui.base + path.format(**seeded.facts)
    for phone in (False, True):
        page = open_page(phone=phone, ui=ui)
        answer = page.goto(url)
        assert answer is not None and answer.status == 200, url
        h1 = page.locator("main h1")
        expect(h1).to_be_visible()
        if heading:
            expect(h1).to_contain_text(heading)
        expect(page.locator('nav[aria-label="Console"] a[aria-current="page"]')).to_have_count(1)
        if phone:
            assert no_horizontal_scroll(page), f"{name} scrolls sideways at phone width"
        shot(page, f"{name}-{'phone' if phone else 'desktop'}")


def test_keyboard_tab_to_the_search_box_and_submit_with_enter(
        ui: UiProc, open_page: Callable[..., Page]) -> None:
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/search")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.name === 'q'"):
            break
    else:
        pytest.fail("Tab never reached the search box")
    page.keyboard.type("tea")
    page.keyboard.press("Enter")
    page.wait_for_url("**/search?q=tea")
    expect(page.locator("main")).to_contain_text("Ada prefers tea over coffee")


def test_search_then_open_an_entity_and_follow_an_edge(
        ui: UiProc, open_page: Callable[..., Page]) -> None:
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/entities")
    page.fill('form[role=search] input[name="q"]', "rockets")
    page.press('form[role=search] input[name="q"]', "Enter")
    page.wait_for_url("**q=rockets**")
    page.click('main table a[href$="/entities/companies/acme"]')
    expect(page.locator("main h1")).to_contain_text("Acme Corp")
    expect(page.locator("main svg").first).to_be_visible()  # the neighbourhood graph
    expect(page.locator("main")).to_contain_text("Acme launches rockets every Tuesday")
    page.locator('main ul a[href$="/entities/people/ada-example"]').first.click()  # a backlink
    expect(page.locator("main h1")).to_contain_text("Ada Example")
    expect(page.locator("main")).to_contain_text("Ada prefers tea over coffee")


def test_forget_a_fact_and_see_it_leave_the_list(
        seeded: Seeded, ui: UiProc, open_page: Callable[..., Page]) -> None:
    fact = call_as(seeded.home, "remember", {
        "fact": "Cy keeps bees on the roof", "provenance": "browser test",
        "entity": "people/cy-example"}, org="org-a")["id"]
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/memories")
    row = page.locator(f"#fact-{fact}")
    expect(row).to_contain_text("Cy keeps bees on the roof")
    row.locator(f'a[href$="/memories/{fact}"]').click()
    page.fill("#reason", "moved the hives")
    page.click("form button.danger")
    page.wait_for_url("**/memories**")
    expect(page.locator(f"#fact-{fact}")).to_have_count(0)
    page.goto(f"{ui.base}/memories/{fact}")
    expect(page.locator("main")).to_contain_text("moved the hives")  # the reason, audited


def test_local_console_opens_only_through_the_printed_url(
        ui: UiProc, open_page: Callable[..., Page]) -> None:
    page = open_page()
    answer = page.goto(f"{ui.base}/memories")
    assert answer is not None and answer.status == 401
    expect(page.locator("h1")).to_contain_text("Open the URL brainkeep ui printed")
    page.goto(ui.url)
    page.wait_for_url(f"{ui.base}/")  # the key left the address bar
    expect(page.locator("header .who")).to_contain_text("local (trusted)")
    (cookie,) = page.context.cookies()
    assert cookie["name"] == "bk_console" and cookie["httpOnly"]
    assert cookie["sameSite"] == "Strict"
    answer = page.goto(f"{ui.base}/memories")
    assert answer is not None and answer.status == 200


def test_the_tab_ui_opens_arrives_signed_in(ui: UiProc, open_page: Callable[..., Page]) -> None:
    # `ui` opens a private file:// page that moves on to its URL; the browser
    # sends no Strict cookie on a redirect of such a cross-site navigation, so
    # the key must be exchanged on a page of the console's own.
    opener = redirect_file(ui.url)
    try:
        assert stat.S_IMODE(opener.stat().st_mode) == 0o600
        assert ui.token not in opener.name
        page = open_page()
        page.goto(opener.as_uri())
        page.wait_for_url(f"{ui.base}/")
        expect(page.locator("header .who")).to_contain_text("local (trusted)")
        # An address the user pastes later (same browser): the cookie goes along.
        answer = page.goto(f"{ui.base}/access")
        assert answer is not None and answer.status == 200
    finally:
        opener.unlink()

"""Privacy in the browser: a remote org-A reader never sees org B's or private rows.

The viewer signs in on ``serve --http`` under ``/console`` with a read token
of org-a, then walks every console link it can reach (and the URLs a curious
viewer would type: another org's filter, hidden ids, the private page,
searches for the sentinels). Each page's rendered HTML is checked, not an
API answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from urllib.parse import urldefrag, urlparse

from browser_support import sign_in
from console_support import (
    ORG_B_SENTINEL,
    PRIVATE_PAGE_SENTINEL,
    PRIVATE_SENTINEL,
    Seeded,
)
from playwright.sync_api import Page, expect

from tests.http.http_support import ServerProc

SENTINELS = (ORG_B_SENTINEL, PRIVATE_SENTINEL, PRIVATE_PAGE_SENTINEL)
MAX_PAGES = 80


def _typed_urls(console: str, seeded: Seeded) -> list[str]:
    facts = seeded.facts
    urls = [f"{console}/memories/{facts['orgb']}", f"{console}/memories/{facts['private']}",
            f"{console}/entities/people/hidden-person",
            f"{console}/memories?org=org-b", f"{console}/memories?visibility=private",
            f"{console}/memories?expired=1", f"{console}/entities?prefix=people/",
            f"{console}/entities/people/ada-example?hops=2",
            f"{console}/audit", f"{console}/usage", f"{console}/access", f"{console}/live"]
    # Parts of the sentinels, never a whole one: a search box echoes its query.
    for word in ("sentinel", "door code", "secret plan"):
        urls += [f"{console}/search?q={word}", f"{console}/entities?q={word}",
                 f"{console}/memories?q={word}"]
    return urls


def _crawl(page: Page, console: str, seeded: Seeded) -> dict[str, str]:
    """Every reachable console page (links followed, typed URLs added): url -> HTML."""
    seen: dict[str, str] = {}
    queue = deque([f"{console}/", *_typed_urls(console, seeded)])
    prefix = urlparse(console).path
    while queue and len(seen) < MAX_PAGES:
        url = urldefrag(queue.popleft())[0]
        if url in seen:
            continue
        page.goto(url, wait_until="domcontentloaded")
        # One round trip for the HTML and the links (getAttribute: an SVG
        # link's .href is an object, not a string).
        html, hrefs = page.evaluate("""() => [document.documentElement.outerHTML,
            [...document.querySelectorAll('a[href]')].map(
                a => new URL(a.getAttribute('href'), location.href).href)]""")
        seen[url] = html
        for href in hrefs:
            link = urldefrag(href)[0]
            path = urlparse(link).path
            if (link.startswith(console) and path.startswith(prefix)
                    and "/static/" not in path and link not in seen):
                queue.append(link)
    return seen


def test_org_a_reader_never_sees_org_b_or_private_rows(
        seeded: Seeded, remote: ServerProc, open_page: Callable[..., Page]) -> None:
    console = f"{remote.base}/console"
    page = open_page()
    sign_in(page, console, seeded.tokens["a_read"])
    expect(page.locator("header .who")).to_contain_text("viewer-a")
    pages = _crawl(page, console, seeded)
    assert len(pages) >= 30, sorted(pages)  # the walk really went places
    leaks = [(url, s) for url, html in pages.items() for s in SENTINELS if s in html]
    assert not leaks, leaks
    # It is a real view of org-a, not an empty one: its world facts and pages show.
    everything = "\n".join(pages.values())
    assert "Ada prefers tea over coffee" in everything
    assert "Acme Corp" in everything


def test_remote_read_token_gets_no_admin_page(
        seeded: Seeded, remote: ServerProc, open_page: Callable[..., Page]) -> None:
    console = f"{remote.base}/console"
    page = open_page()
    sign_in(page, console, seeded.tokens["a_read"])
    for path in ("/audit", "/usage", "/access", "/live"):
        answer = page.goto(f"{console}{path}")
        assert answer is not None and answer.status == 403, path
        expect(page.locator("main")).to_contain_text("admin")
    nav = page.locator('nav[aria-label="Console"]')
    for label in ("Audit", "Usage", "Access", "Live"):
        expect(nav.get_by_role("link", name=label, exact=True)).to_have_count(0)
    feed = page.request.get(f"{console}/live/events")
    assert feed.status == 403


def test_remote_admin_manages_its_own_org_only(
        seeded: Seeded, remote: ServerProc, open_page: Callable[..., Page]) -> None:
    console = f"{remote.base}/console"
    page = open_page()
    sign_in(page, console, seeded.tokens["a_admin"])
    page.goto(f"{console}/access")
    tokens = page.locator("#tokens tbody tr[data-token]")
    orgs = set(tokens.evaluate_all("rows => rows.map(r => r.cells[2].textContent.trim())"))
    assert orgs == {"org-a"}, orgs
    expect(page.locator('#tokens tr[data-token="viewer-b"]')).to_have_count(0)
    expect(page.locator("#token-org")).to_have_count(0)  # the org is the token's, not a choice
    page.fill("#token-name", "remote-made")
    page.click("#create-token button[type=submit]")
    assert page.locator("#secret-value").input_value().startswith("bk_")
    expect(page.locator('#tokens tr[data-token="remote-made"]')).to_contain_text("org-a")
    # Another org's token reads as absent, even when its name is posted directly.
    csrf = page.locator('#create-token input[name="csrf"]').input_value()
    answer = page.request.post(f"{console}/access/revoke", form={"csrf": csrf,
                                                                  "name": "viewer-b"})
    assert answer.status == 404
    page.goto(f"{console}/audit")
    page.click("#verify-now")
    expect(page.locator("#verify-result")).to_have_attribute("data-valid", "true")

"""Each core console page renders on a seeded brain (local `brainkeep ui`, real socket)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import httpx
from console_support import (
    ORG_B_SENTINEL,
    PRIVATE_PAGE_SENTINEL,
    PRIVATE_SENTINEL,
    Seeded,
    UiProc,
    refresh_target,
    server_env,
)


def get(ui: UiProc, path: str) -> httpx.Response:
    response = httpx.get(ui.base + path, cookies=ui.cookies, timeout=30)
    assert response.status_code == 200, (path, response.status_code, response.text[:2000])
    assert "Traceback" not in response.text
    return response


def test_home_counts_what_the_tenant_holds(ui: UiProc) -> None:
    page = get(ui, "/").text
    assert "pages</a>" in page and "active memories" in page
    assert 'href="/entities"' in page and 'href="/memories"' in page and 'href="/search"' in page
    assert "Ada prefers tea over coffee" in page
    assert ORG_B_SENTINEL not in page  # the ui runs as --org org-a


def test_entities_browse_search_and_prefix(ui: UiProc) -> None:
    listing = get(ui, "/entities").text
    assert "Ada Example" in listing and "Acme Corp" in listing
    # Trusted like the CLI: the local console lists private pages too.
    assert PRIVATE_PAGE_SENTINEL in listing
    found = get(ui, "/entities?q=rockets").text
    assert "Acme Corp" in found and "Cy Example" not in found
    people = get(ui, "/entities?prefix=companies/").text
    assert "Acme Corp" in people and "Bob Example" not in people


def test_entity_view_card_edges_backlinks_and_graph(ui: UiProc) -> None:
    page = get(ui, "/entities/people/ada-example").text
    assert "Ada builds compilers." in page  # summary
    assert "Ada</dd>" in page or "Ada," in page  # alias
    assert 'href="/entities/companies/acme"' in page  # an edge
    assert 'href="/entities/people/bob-example"' in page  # edge and backlink
    assert "<svg" in page and 'aria-labelledby="graph-title"' in page
    assert "Ada prefers tea over coffee" in page  # the entity's facts
    assert "Cy Example" not in page.split("<svg", 1)[1].split("</svg>", 1)[0]
    two_hops = get(ui, "/entities/people/ada-example?hops=2").text
    graph = two_hops.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert "Cy Example" in graph  # ada -> bob -> cy


def test_unknown_entity_is_a_404_page(ui: UiProc) -> None:
    response = httpx.get(ui.base + "/entities/people/nobody", cookies=ui.cookies, timeout=30)
    assert response.status_code == 404
    assert "not_found" in response.text


def test_memories_filters(ui: UiProc, seeded: Seeded) -> None:
    page = get(ui, "/memories").text
    assert "Ada prefers tea over coffee" in page and PRIVATE_SENTINEL in page
    assert ORG_B_SENTINEL not in page
    events = get(ui, "/memories?kind=event").text
    assert "Acme launches rockets" in events and "Ada prefers tea" not in events
    by_entity = get(ui, "/memories?entity=Acme+Corp").text
    assert "Acme launches rockets" in by_entity and "Ada prefers tea" not in by_entity
    world = get(ui, "/memories?visibility=world").text
    assert PRIVATE_SENTINEL not in world and "Ada prefers tea" in world
    future = get(ui, "/memories?since=2999-01-01").text
    assert "Ada prefers tea" not in future
    past = get(ui, "/memories?until=2000-01-01").text
    assert "Ada prefers tea" not in past
    # The trusted local console may look into another tenant, as `--org` does.
    other = get(ui, "/memories?org=org-b").text
    assert ORG_B_SENTINEL in other and "Ada prefers tea" not in other
    nobody = get(ui, "/memories?agent=nobody-agent").text
    assert "Ada prefers tea" not in nobody


def test_memory_detail_provenance_validity_and_history(ui: UiProc, seeded: Seeded) -> None:
    page = get(ui, f"/memories/{seeded.facts['tea']}").text
    assert "console test" in page  # provenance
    assert "Valid" in page and "open" in page
    assert "memory.insert" in page  # its audit events
    assert 'class="timeline"' in page


def test_search_playground_explains_results(ui: UiProc) -> None:
    page = get(ui, "/search?q=Acme+rockets").text
    assert "Acme Corp" in page
    assert "Keyword (BM25)" in page and "Vector (cosine)" in page
    assert "keyword list: page #1" in page
    assert "Acme launches rockets every Tuesday" in page  # recall's facts arm
    assert get(ui, "/search").status_code == 200


def test_static_and_security_headers(ui: UiProc) -> None:
    css = get(ui, "/static/console.css")
    assert "text/css" in css.headers["content-type"]
    page = get(ui, "/")
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"


def test_ui_json_prints_the_url_a_script_can_open(seeded: Seeded) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "brainkeep", "ui", "--port", "0", "--no-browser", "--json"],
        env=server_env(seeded.home), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        announced = json.loads(proc.stdout.readline())
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{43}",
                            announced["url"]), announced
        with httpx.Client(timeout=10) as client:
            opened = client.get(announced["url"])  # the key buys a cookie, then a clean URL
            assert opened.status_code == 200 and refresh_target(opened.text) == "/"
            home = client.get(announced["url"].split("?", 1)[0])
            assert home.status_code == 200 and "local (trusted)" in home.text
    finally:
        proc.terminate()
        proc.wait(15)
        proc.stdout.close()  # type: ignore[union-attr]

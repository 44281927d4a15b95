"""Audit, Usage, Access and Live over a PostgreSQL brain, signed in remotely as an org admin."""

from __future__ import annotations

from collections.abc import Callable

from browser_support import mcp_call, sign_in
from console_support import Seeded
from playwright.sync_api import Page, expect

from tests.http.http_support import ServerProc


def test_admin_pages_on_postgres(pg_seeded: Seeded, pg_remote: ServerProc,
                                 open_page: Callable[..., Page]) -> None:
    console = f"{pg_remote.base}/console"
    page = open_page()
    sign_in(page, console, pg_seeded.tokens["a_admin"])
    assert mcp_call(pg_remote.url, pg_seeded.tokens["a_read"], "recall",
                    {"query": "tea"}).status_code == 200
    page.goto(f"{console}/audit")
    expect(page.locator("#events tbody tr[data-seq]").first).to_be_visible()
    page.click("#verify-now")
    expect(page.locator("#verify-result")).to_have_attribute("data-valid", "true")
    page.goto(f"{console}/usage?days=1")
    expect(page.locator('#callers tr[data-caller="viewer-a"]')).to_have_count(1)
    page.goto(f"{console}/access")
    page.fill("#token-name", "pg-made")
    page.click("#create-token button[type=submit]")
    secret = page.locator("#secret-value").input_value()
    assert mcp_call(pg_remote.url, secret, "recall", {"query": "tea"}).status_code == 200
    page.click('#tokens tr[data-token="pg-made"] button')
    expect(page.locator('#tokens tr[data-token="pg-made"]')).to_have_count(0)
    assert mcp_call(pg_remote.url, secret, "recall", {"query": "tea"}).status_code == 401
    page.goto(f"{console}/live")
    expect(page.locator("#live-feed")).to_have_attribute("data-connected", "true")
    expect(page.locator('#live-feed tbody tr[data-verb="recall"]').first).to_be_attached()

"""Audit, Usage, Access and Live in a real browser, on the local console (`brainkeep ui`).

Calls that feed Usage and Live go to the real ``/mcp`` endpoint of the
``remote`` server with a token made for the test, so the numbers the page
shows can be checked exactly whatever else the session logged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from browser_support import event_head, mcp_call, tampered_event, tampered_memory
from console_support import Seeded, UiProc, create_token
from playwright.sync_api import Page, expect

from tests.http.http_support import ServerProc

Shot = Callable[[Page, str], Path]


def test_audit_lists_the_log_and_verifies(seeded: Seeded, ui: UiProc,
                                          open_page: Callable[..., Page], shot: Shot) -> None:
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/audit")
    head = event_head(seeded.home)
    rows = page.locator("#events tbody tr[data-seq]")
    expect(rows.first).to_have_attribute("data-seq", str(head))  # newest first
    assert rows.count() == min(50, head)
    page.click("#verify-now")
    result = page.locator("#verify-result")
    expect(result).to_have_attribute("data-valid", "true")
    expect(result).to_contain_text(f"{head}")  # the head it walked to
    assert page.locator("tr.broken").count() == 0
    shot(page, "audit-valid")


def test_verify_highlights_the_first_broken_event(seeded: Seeded, ui: UiProc,
                                                  open_page: Callable[..., Page],
                                                  shot: Shot) -> None:
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/audit")
    seq = max(1, event_head(seeded.home) - 2)  # near the top: the screenshot shows both
    with tampered_event(seeded.home, seq):
        page.click("#verify-now")
        result = page.locator("#verify-result")
        expect(result).to_have_attribute("data-valid", "false")
        expect(result).to_contain_text(f"event {seq}")
        expect(result).to_contain_text("event hash does not match its contents")
        broken = page.locator("tr.broken")
        expect(broken).to_have_count(1)
        expect(broken).to_have_attribute("id", f"event-{seq}")
        expect(broken).to_contain_text("mallory")  # the edited value, as stored now
        shot(page, "audit-tampered")
        page.click("#broken-link")
        assert page.url.endswith(f"#event-{seq}")
        expect(broken).to_be_in_viewport()
    page.click("#verify-now")  # restored: the same walk is valid again
    expect(page.locator("#verify-result")).to_have_attribute("data-valid", "true")


def test_verify_points_at_the_event_a_tampered_row_fails(
        seeded: Seeded, ui: UiProc, open_page: Callable[..., Page]) -> None:
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/audit")
    with tampered_memory(seeded.home, seeded.facts["rockets"]) as seq:
        page.click("#verify-now")
        result = page.locator("#verify-result")
        expect(result).to_have_attribute("data-valid", "false")
        expect(result).to_contain_text("text does not match its stored content_hash")
        expect(page.locator("tr.broken")).to_have_attribute("id", f"event-{seq}")
    page.click("#verify-now")
    expect(page.locator("#verify-result")).to_have_attribute("data-valid", "true")


def test_audit_pages_through_older_events(seeded: Seeded, ui: UiProc,
                                          open_page: Callable[..., Page]) -> None:
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/audit?before=3")
    seqs = page.locator("#events tbody tr[data-seq]").evaluate_all(
        "rows => rows.map(r => Number(r.dataset.seq))")
    assert seqs == [2, 1]
    assert page.locator("a[rel=next]").count() == 0  # nothing older than seq 1
    page.click("a[rel=prev]")
    first = page.locator("#events tbody tr[data-seq]").first.get_attribute("data-seq")
    assert first is not None and int(first) > 2


def test_usage_shows_calls_errors_latency_and_callers(
        seeded: Seeded, ui: UiProc, remote: ServerProc, open_page: Callable[..., Page],
        shot: Shot) -> None:
    secret = create_token(seeded.home, "usage-probe", "read", org="org-a")
    for query in ("tea", "rockets", "stamps"):
        assert mcp_call(remote.url, secret, "recall", {"query": query}).status_code == 200
    mcp_call(remote.url, secret, "entity", {"name": "people/ada-example"})
    mcp_call(remote.url, secret, "entity", {"name": "people/nobody-at-all"})
    # A read token may not write: logged as a failed call.
    mcp_call(remote.url, secret, "remember", {"fact": "x", "provenance": "y"})
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/usage?days=1")
    caller = page.locator('#callers tr[data-caller="usage-probe"]')
    expect(caller).to_have_count(1)
    assert caller.locator("td").nth(1).inner_text() == "6"
    assert caller.locator("td").nth(2).inner_text() == "1"  # one error
    recall = page.locator('#verbs tr[data-verb="recall"]')
    assert int(recall.locator("td").nth(1).inner_text()) >= 3
    assert re.fullmatch(r"\d+ ms", recall.locator("td").nth(4).inner_text())
    assert re.fullmatch(r"\d+%", page.locator("#entity-hit-rate").inner_text())
    for chart in ("chart-calls", "chart-errors", "chart-latency"):
        expect(page.locator(f"svg#{chart}")).to_be_visible()
    recall_dots = page.locator('#chart-calls g.series[data-series="recall"] circle')
    expect(recall_dots.first).to_be_attached()
    expect(page.locator('#chart-latency g.series[data-series="p99"]')).to_be_attached()
    rates = page.locator("#chart-errors g.series circle title").evaluate_all(
        "titles => titles.map(t => t.textContent)")
    assert any(not text.endswith(": 0") for text in rates)  # the failed call shows
    shot(page, "usage")


def test_live_feed_shows_calls_as_they_happen(
        seeded: Seeded, ui: UiProc, remote: ServerProc, open_page: Callable[..., Page],
        shot: Shot) -> None:
    secret = create_token(seeded.home, "live-probe", "read", org="org-a")
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/live")
    feed = page.locator("#live-feed")
    expect(feed).to_have_attribute("data-connected", "true")
    before = page.locator("#live-feed tbody tr").count()
    assert mcp_call(remote.url, secret, "recall", {"query": "tea"}).status_code == 200
    fresh = page.locator("#live-feed tbody tr.fresh", has_text="live-probe")
    expect(fresh).to_have_count(1)
    expect(fresh).to_contain_text("recall")
    assert page.locator("#live-feed tbody tr").count() == before + 1
    expect(page.locator("#live-status")).to_have_text("live")
    shot(page, "live")


def test_create_and_revoke_a_token(seeded: Seeded, ui: UiProc, remote: ServerProc,
                                   open_page: Callable[..., Page], shot: Shot) -> None:
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/access")
    page.fill("#token-name", "browser-made")
    page.fill("#token-org", "org-a")
    page.click("#create-token button[type=submit]")
    secret = page.locator("#secret-value").input_value()
    assert secret.startswith("bk_")
    shot(page, "access-created")
    row = page.locator('#tokens tr[data-token="browser-made"]')
    expect(row).to_have_attribute("data-status", "active")
    expect(row).to_contain_text("org-a")
    assert mcp_call(remote.url, secret, "recall", {"query": "tea"}).status_code == 200
    page.reload()  # shown once: the redirect's one-time slot is spent
    expect(page.locator("#new-secret")).to_have_count(0)
    assert secret not in page.content()
    page.click('#tokens tr[data-token="browser-made"] button')
    expect(page.locator('#tokens tr[data-token="browser-made"]')).to_have_count(0)
    expect(page.locator("#revoked-notice")).to_contain_text("browser-made")
    refused = mcp_call(remote.url, secret, "recall", {"query": "tea"})
    assert refused.status_code == 401
    page.click("text=Show revoked")
    expect(page.locator('#tokens tr[data-token="browser-made"]')).to_have_attribute(
        "data-status", "revoked")


def test_bad_token_form_shows_the_service_error(ui: UiProc,
                                                open_page: Callable[..., Page]) -> None:
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/access")
    page.fill("#token-name", "viewer-a")  # taken by the seed
    page.click("#create-token button[type=submit]")
    expect(page.locator("#token-error")).to_contain_text("already exists")
    expect(page.locator("#new-secret")).to_have_count(0)


def test_writing_forms_refuse_a_missing_csrf_token(ui: UiProc,
                                                   open_page: Callable[..., Page]) -> None:
    page = open_page(ui=ui)
    page.goto(f"{ui.base}/access")  # a session cookie, but no form token sent below
    for path, form in (("/audit/verify", {}), ("/access/tokens", {"name": "csrf-less"}),
                       ("/access/revoke", {"name": "viewer-a"})):
        answer = page.request.post(f"{ui.base}{path}", form=form)
        assert answer.status == 403, path
        answer = page.request.post(f"{ui.base}{path}", form={**form, "csrf": "forged"})
        assert answer.status == 403, path
    page.reload()
    expect(page.locator('#tokens tr[data-token="csrf-less"]')).to_have_count(0)
    expect(page.locator('#tokens tr[data-token="viewer-a"]')).to_have_count(1)

"""An org-bound admin sees its own tenant on Audit, Usage and Live, on both engines.

Before the fix an org-A admin read every tenant's audit log (token names,
entity slugs, forget reasons, agent ids of org B) and every caller on Usage
and Live, though the Access page hid them. Org B's activity here goes
through the real ``/mcp`` endpoint as an org-B token bound to an agent, so
the log, the usage file and the feed all carry its names.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

import httpx
import pytest
from console_support import Seeded, UiProc, create_token, mcp_call, sign_in

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from tests.http.http_support import ServerProc

ORG_B_TOKEN = "zq-orgb-token-8842"
ORG_B_AGENT = "zq-orgb-agent-3391"
ORG_B_REASON = "zq-orgb-reason-6620"
ORG_B_ENTITY = "people/zq-orgb-entity-5150"
OLDER = re.compile(r'href="(/console/audit\?before=\d+)" rel="next"')


@dataclass(frozen=True)
class OrgB:
    """What org B's activity left behind: the strings org A must never see."""

    secrets: tuple[str, ...]


def org_b_activity(remote: ServerProc, seeded: Seeded) -> OrgB:
    """Org B remembers and forgets a fact over MCP; org A makes a call too."""
    secret = create_token(seeded.home, ORG_B_TOKEN, "read,write", org="org-b",
                          agent=ORG_B_AGENT)
    made = mcp_call(remote.url, secret, "remember", {
        "fact": "Org B's quarterly numbers", "provenance": "tenancy test",
        "entity": ORG_B_ENTITY})
    assert made.status_code == 200, made.text
    fact = json.loads(made.json()["result"]["content"][0]["text"])["id"]
    gone = mcp_call(remote.url, secret, "forget", {"id": fact, "reason": ORG_B_REASON})
    assert gone.status_code == 200, gone.text
    assert mcp_call(remote.url, seeded.tokens["a_read"], "recall",
                    {"query": "tea"}).status_code == 200
    brain = open_brain(load_settings(seeded.home, env={}))
    try:  # whatever the entity resolved to is what the log names
        memory = brain.store.get_memory(int(fact))
        assert memory is not None and memory.org_id == "org-b"
        slug = memory.entity_slug or ORG_B_ENTITY
    finally:
        brain.close()
    return OrgB((ORG_B_TOKEN, ORG_B_AGENT, ORG_B_REASON, slug, "viewer-b", '"org-b"'))


def audit_pages(client: httpx.Client, console: str) -> list[str]:
    """Every page of the audit log, newest first (following the Older links)."""
    pages = [client.get(f"{console}/audit")]
    while (older := OLDER.search(pages[-1].text)) is not None and len(pages) < 100:
        pages.append(client.get(console.removesuffix("/console") + older.group(1)))
    assert all(p.status_code == 200 for p in pages)
    return [p.text for p in pages]


def live_stream(client: httpx.Client, console: str) -> str:
    """The live feed replayed from the log's start, until it falls quiet for a second."""
    text = ""
    quiet = httpx.Timeout(30, read=1.0)
    with client.stream("GET", f"{console}/live/events?from=0", timeout=quiet) as stream:
        assert stream.status_code == 200
        try:
            for chunk in stream.iter_text():
                text += chunk
        except httpx.ReadTimeout:  # replayed; the stream would idle on for 25 s
            pass
    return text


def check_org_a_admin_sees_org_a_only(remote: ServerProc, seeded: Seeded) -> OrgB:
    org_b = org_b_activity(remote, seeded)
    console = remote.base + "/console"
    with httpx.Client(timeout=30) as client:
        assert sign_in(client, console, seeded.tokens["a_admin"]).status_code == 303
        audit = audit_pages(client, console)
        usage = client.get(f"{console}/usage?days=1").text
        live = client.get(f"{console}/live").text
        feed = live_stream(client, console)
    seen = {"audit": "\n".join(audit), "usage": usage, "live": live, "live/events": feed}
    leaks = {page: found for page, text in seen.items()
             if (found := [s for s in org_b.secrets if s in html.unescape(text)])}
    assert not leaks, leaks
    # A real view of org A, not an empty one.
    log = html.unescape("\n".join(audit))
    assert "admin-a" in log and "memory.insert" in log and '"org-a"' in log
    assert 'data-caller="viewer-a"' in usage
    assert '"caller":"viewer-a"' in feed
    return org_b


def test_org_admin_sees_its_own_tenant_only(remote: ServerProc, seeded: Seeded,
                                            ui: UiProc) -> None:
    org_b = check_org_a_admin_sees_org_a_only(remote, seeded)
    # The trusted local console still sees the whole brain, org B included.
    with ui.client() as local:
        assert ORG_B_REASON in local.get("/audit").text
        assert f'data-caller="{ORG_B_TOKEN}"' in local.get("/usage?days=1").text
    assert org_b.secrets


@pytest.mark.usefixtures("pg_seeded")
def test_org_admin_sees_its_own_tenant_only_on_postgres(pg_remote: ServerProc,
                                                        pg_seeded: Seeded) -> None:
    check_org_a_admin_sees_org_a_only(pg_remote, pg_seeded)

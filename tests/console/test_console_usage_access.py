"""Usage split by caller kind, and the Access page's tenant rule, in process on a real brain.

Before: /usage gave one error rate and one entity hit rate for every caller,
so a person's typos at the shell read as an agent's failures; and an admin
token bound to no org managed only no-org tokens on /access, though OAuth
consent and the audit log (``core/tenant_fence.operator_covers``) let an
unbound operator cover every org.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from console_support import csrf_of, sign_in
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.console.app import build_console_app
from brainkeep.core.tokens import TokenService
from brainkeep.ops.registry import open_dispatcher
from brainkeep.ops.usage import UsageEvent, UsageLog, usage_timestamp
from tests.http.http_support import make_home


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Brain]:
    home = make_home(tmp_path_factory.mktemp("usage-access") / "home")
    opened = open_brain(load_settings(home, env={}))
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="module")
def secrets(brain: Brain) -> dict[str, str]:
    tokens = TokenService(brain.store, brain.clock)
    return {
        "root": tokens.create("ops-root", "admin").secret,  # no --org: brain-wide
        "a_admin": tokens.create("ops-a", "admin", org_id="org-a").secret,
        "a_read": tokens.create("reader-a", "read", org_id="org-a").secret,
        "b_read": tokens.create("reader-b", "read", org_id="org-b").secret,
        "b_spare": tokens.create("spare-b", "read", org_id="org-b").secret,
    }


@pytest.fixture(scope="module")
def app(brain: Brain) -> Starlette:
    console = build_console_app(brain, open_dispatcher(brain, "full"), base="/console")
    return Starlette(routes=[Mount("/console", app=console)])


def _client(app: Starlette, secret: str) -> TestClient:
    client = TestClient(app, follow_redirects=False)
    assert sign_in(client, "/console", secret).status_code == 303
    return client


def _tokens_listed(page: str) -> set[str]:
    return set(re.findall(r'<tr data-token="([^"]+)"', page))


def test_an_unbound_admin_manages_every_orgs_tokens(app: Starlette, brain: Brain,
                                                    secrets: dict[str, str]) -> None:
    with _client(app, secrets["root"]) as root:
        page = root.get("/console/access").text
        assert _tokens_listed(page) >= {"ops-root", "ops-a", "reader-a", "reader-b"}
        assert 'id="token-org"' in page  # it picks the org of a token it creates
        csrf = csrf_of(page)
        made = root.post("/console/access/tokens", data={
            "csrf": csrf, "name": "made-for-c", "scopes": "read", "org_id": "org-c"})
        assert made.status_code == 303, made.text[:500]
        gone = root.post("/console/access/revoke", data={"csrf": csrf, "name": "spare-b"})
        assert gone.status_code == 303, gone.text[:500]
    tokens = {t.name: t for t in brain.store.list_tokens(include_revoked=True)}
    assert tokens["made-for-c"].org_id == "org-c"
    assert tokens["spare-b"].revoked_at is not None


def test_an_org_bound_admin_still_manages_its_own_org_only(app: Starlette, brain: Brain,
                                                           secrets: dict[str, str]) -> None:
    with _client(app, secrets["a_admin"]) as admin:
        page = admin.get("/console/access").text
        assert _tokens_listed(page) == {"ops-a", "reader-a"}
        assert 'id="token-org"' not in page
        csrf = csrf_of(page)
        refused = admin.post("/console/access/revoke", data={"csrf": csrf, "name": "reader-b"})
        assert refused.status_code == 404  # another org's token reads as absent
        made = admin.post("/console/access/tokens", data={
            "csrf": csrf, "name": "made-by-a", "scopes": "read", "org_id": "org-c"})
        assert made.status_code == 303
    tokens = {t.name: t for t in brain.store.list_tokens(include_revoked=True)}
    assert tokens["reader-b"].revoked_at is None
    assert tokens["made-by-a"].org_id == "org-a"  # the form's org is ignored


# (kind, transport, token name, calls, errors, entity found, entity missed)
TRAFFIC = [
    ("cli", "cli", None, 8, 6, 0, 2),  # a person at the shell: typos, unknown names
    ("http", "http", "agent-a", 20, 1, 9, 1),
    ("stdio", "stdio", None, 5, 0, 2, 2),
    ("oauth", "http", "oauth:claude-web", 4, 2, 0, 0),
]


def _record(brain: Brain) -> None:
    """Each kind's calls: its entity lookups (all answered), then its failures, then the rest."""
    log = UsageLog(brain.settings.usage_path)
    now = datetime.now(UTC)
    for _kind, transport, token, calls, errors, found, missed in TRAFFIC:
        lookups = found + missed
        for i in range(calls):
            log.record(UsageEvent(
                ts=usage_timestamp(now - timedelta(minutes=5 + i)), brain_id="b",
                verb="entity" if i < lookups else "recall", surface="full",
                transport=transport, remote=transport != "cli",
                ok=not lookups <= i < lookups + errors, latency_ms=3 + i, source_id="default",
                token_name=token, entity_found=(i < found) if i < lookups else None))


def _row(page: str, kind: str) -> tuple[str, dict[str, str]]:
    row = re.search(rf'<tr data-kind="{kind}"><th scope="row">([^<]+)</th>(.*?)</tr>', page,
                    re.S)
    assert row, f"no {kind} row on /usage"
    return row.group(1), dict(re.findall(r'<td class="([a-z-]+)">([^<]*)</td>', row.group(2)))


def test_usage_has_an_error_and_hit_rate_per_caller_kind(app: Starlette, brain: Brain,
                                                        secrets: dict[str, str]) -> None:
    _record(brain)
    with _client(app, secrets["root"]) as root:
        page = root.get("/console/usage?days=1").text
    labels = {}
    for kind, _transport, _token, calls, errors, found, missed in TRAFFIC:
        labels[kind], cells = _row(page, kind)
        assert cells["error-rate"] == f"{100 * errors / calls:.1f}%", kind
        hits = f"{round(100 * found / (found + missed))}% ({found}/{found + missed})" \
            if found + missed else "&ndash;"
        assert cells["hit-rate"] == hits, kind
    assert labels == {"cli": "Local CLI (and brainkeep ui)", "http": "MCP over HTTP, token",
                      "stdio": "MCP over stdio", "oauth": "MCP over HTTP, OAuth"}
    chart = page.split('id="chart-errors"', 1)[1].split("</figure>", 1)[0]
    for label in labels.values():  # one error-rate line per kind
        assert f'data-series="{label}"' in chart

"""The consent page: who may approve, what Deny does, and requests that are gone.

Every case is answered over real HTTP (the form a person would post) and
checked for what matters: whether an authorization code came back in the
redirect, and whether any code was written to the brain for that client.
The per-address sign-in limiter is shared by every test of one server, so
the tests that spend many sign-ins get their own server.
"""

from __future__ import annotations

import re
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx2
import pytest
import uvicorn
from http_support import OPEN_LIMITS, ServerProc, create_token, make_home, start_server
from oauth_support import REDIRECT, add_client, pkce, token_request
from starlette.applications import Starlette

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.oauth.service import NewClient, OAuthService
from brainkeep.core.tokens import TokenService
from brainkeep.mcp.oauth_provider import MAX_LOGIN_FAILURES, PENDING_TTL_S, BrainkeepOAuthProvider
from brainkeep.mcp.oauth_routes import oauth_routes


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_home(tmp_path_factory.mktemp("oauth-consent"), OPEN_LIMITS)


@pytest.fixture(scope="module")
def server(home: Path) -> Iterator[ServerProc]:
    proc = start_server(home)
    yield proc
    assert proc.stop() == 0
    assert "Traceback" not in proc.stderr(), proc.stderr()


def _admin(home: Path, name: str, org: str | None = None) -> str:
    brain = open_brain(load_settings(home, env={}))
    try:
        return TokenService(brain.store, brain.clock).create(name, "admin", org_id=org).secret
    finally:
        brain.close()


@pytest.fixture(scope="module")
def admins(home: Path) -> dict[str, str]:
    return {"unbound": _admin(home, "operator"), "a": _admin(home, "admin-a", "org-a"),
            "b": _admin(home, "admin-b", "org-b")}


def _ticket(base: str, client: NewClient) -> str:
    _verifier, challenge = pkce()
    hop = httpx2.get(f"{base}/authorize", params={
        "response_type": "code", "client_id": client.client.client_id, "redirect_uri": REDIRECT,
        "code_challenge": challenge, "code_challenge_method": "S256", "state": "s1"})
    assert hop.status_code == 302, hop.text
    page = httpx2.get(hop.headers["location"])
    assert page.status_code == 200, page.text
    found = re.search(r'name="request" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def _answer(base: str, ticket: str, login: str, decision: str = "approve") -> httpx2.Response:
    return httpx2.post(f"{base}/oauth/consent", data={
        "request": ticket, "login": login, "decision": decision})


def _codes(home: Path, client: NewClient) -> int:
    """Authorization codes written to the brain for this client (used or not)."""
    db = load_settings(home, env={}).db_path
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT count(*) FROM oauth_grants WHERE client_id = ? AND kind = ?",
                           (client.client.client_id, "code")).fetchone()
    return int(row[0])


def _no_code(response: httpx2.Response) -> None:
    assert "code=" not in response.headers.get("location", ""), response.headers
    assert response.status_code != 302 or "error=" in response.headers["location"]


def _code_of(response: httpx2.Response) -> str:
    assert response.status_code == 302, response.text
    return parse_qs(urlparse(response.headers["location"]).query)["code"][0]


def test_admin_of_another_org_cannot_approve(home: Path, server: ServerProc,
                                             admins: dict[str, str]) -> None:
    client_a = add_client(home, "tenant-a-app", redirect_uris=(REDIRECT,), org_id="org-a")
    no_org = add_client(home, "no-org-app", redirect_uris=(REDIRECT,))
    ticket_a, ticket_none = _ticket(server.base, client_a), _ticket(server.base, no_org)
    for ticket, client in ((ticket_a, client_a), (ticket_none, no_org)):
        refused = _answer(server.base, ticket, admins["b"])
        assert refused.status_code == 403, refused.text
        assert "org-b" in refused.text
        _no_code(refused)
        assert _codes(home, client) == 0
    # The request is still open for an operator who covers the tenant.
    assert _code_of(_answer(server.base, ticket_a, admins["a"]))


def test_admin_of_the_clients_org_or_unbound_approves(home: Path, server: ServerProc,
                                                      admins: dict[str, str]) -> None:
    client_a = add_client(home, "tenant-a-tool", redirect_uris=(REDIRECT,), org_id="org-a")
    no_org = add_client(home, "no-org-tool", redirect_uris=(REDIRECT,))
    verifier, challenge = pkce()
    hop = httpx2.get(f"{server.base}/authorize", params={
        "response_type": "code", "client_id": client_a.client.client_id,
        "redirect_uri": REDIRECT, "code_challenge": challenge,
        "code_challenge_method": "S256", "state": "s1"})
    ticket = parse_qs(urlparse(hop.headers["location"]).query)["request"][0]
    code = _code_of(_answer(server.base, ticket, admins["a"]))
    tokens = token_request(server.base, client_a, grant_type="authorization_code", code=code,
                           code_verifier=verifier, redirect_uri=REDIRECT)
    assert tokens.status_code == 200, tokens.text
    assert _code_of(_answer(server.base, _ticket(server.base, client_a), admins["unbound"]))
    assert _code_of(_answer(server.base, _ticket(server.base, no_org), admins["unbound"]))


def test_deny_redirects_with_access_denied_and_issues_no_code(
        home: Path, server: ServerProc, admins: dict[str, str]) -> None:
    client = add_client(home, "denied-app", redirect_uris=(REDIRECT,))
    ticket = _ticket(server.base, client)
    denied = _answer(server.base, ticket, "", decision="deny")
    assert denied.status_code == 302, denied.text
    location = denied.headers["location"]
    assert location.startswith(REDIRECT)
    query = parse_qs(urlparse(location).query)
    assert query["error"] == ["access_denied"] and query["state"] == ["s1"]
    assert "code" not in query
    assert _codes(home, client) == 0
    # The answer is final: approving the same request afterwards yields nothing.
    late = _answer(server.base, ticket, admins["unbound"])
    assert late.status_code == 400, late.text
    _no_code(late)
    assert _codes(home, client) == 0


def test_unknown_request_issues_no_code(home: Path, server: ServerProc,
                                        admins: dict[str, str]) -> None:
    client = add_client(home, "unknown-ticket-app", redirect_uris=(REDIRECT,))
    _ticket(server.base, client)  # a real request exists; the posted one is another
    for decision in ("approve", "deny"):
        answer = _answer(server.base, "no-such-request", admins["unbound"], decision)
        assert answer.status_code == 400 and "unknown or expired" in answer.text
        _no_code(answer)
    page = httpx2.get(f"{server.base}/oauth/consent", params={"request": "no-such-request"})
    assert page.status_code == 400
    assert _codes(home, client) == 0


def test_wrong_sign_ins_drop_the_request(tmp_path: Path) -> None:
    """After MAX_LOGIN_FAILURES wrong logins the request is gone, even for the right login."""
    home = make_home(tmp_path / "cap", OPEN_LIMITS)
    admin = create_token(home, "operator", "admin")
    client = add_client(home, "guessed-app", redirect_uris=(REDIRECT,))
    proc = start_server(home)
    try:
        ticket = _ticket(proc.base, client)
        codes = [_answer(proc.base, ticket, f"guess-{i}").status_code
                 for i in range(MAX_LOGIN_FAILURES)]
        assert codes == [403] * MAX_LOGIN_FAILURES, codes
        late = _answer(proc.base, ticket, admin)
        assert late.status_code == 400 and "unknown or expired" in late.text
        _no_code(late)
        assert _codes(home, client) == 0
        # Only that request: a new one is approved as usual.
        assert _code_of(_answer(proc.base, _ticket(proc.base, client), admin))
    finally:
        assert proc.stop() == 0
    assert "Traceback" not in proc.stderr(), proc.stderr()


class _Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_expired_request_issues_no_code(tmp_path: Path) -> None:
    """A request older than PENDING_TTL_S is refused (a real socket, a hand-moved clock)."""
    home = make_home(tmp_path / "ttl", OPEN_LIMITS)
    admin = create_token(home, "operator", "admin")
    client = add_client(home, "slow-app", redirect_uris=(REDIRECT,))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    brain = open_brain(load_settings(home, env={}))
    clock = _Clock()
    service = OAuthService(brain.store, brain.clock)
    provider = BrainkeepOAuthProvider(service, base, monotonic=clock)
    app = Starlette(routes=oauth_routes(provider, service, TokenService(brain.store, brain.clock),
                                        issuer=base, resource=f"{base}/mcp",
                                        allow_registration=False))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        fresh, stale = _ticket(base, client), _ticket(base, client)
        clock.now += PENDING_TTL_S - 1
        assert _code_of(_answer(base, fresh, admin))  # the control: just in time
        clock.now += 2
        page = httpx2.get(f"{base}/oauth/consent", params={"request": stale})
        assert page.status_code == 400 and "unknown or expired" in page.text
        for decision in ("approve", "deny"):
            late = _answer(base, stale, admin, decision)
            assert late.status_code == 400, late.text
            _no_code(late)
        assert _codes(home, client) == 1  # only the control's
    finally:
        server.should_exit = True
        thread.join(30)
        brain.close()
        sock.close()

"""OAuth refusals at the token endpoint and the gate, each its own case.

Codes and tokens are obtained by hand (real /authorize, consent form and
/token over HTTP) so every step of a refusal is visible.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from http_support import (
    OPEN_LIMITS,
    ServerProc,
    create_token,
    make_home,
    past_clock,
    start_server,
    stopped_cleanly,
)
from oauth_support import REDIRECT, add_client, authorize, mcp_status, pkce, token_request

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.oauth.service import NewClient, OAuthService
from brainkeep.mcp.oauth_provider import MAX_LOGIN_FAILURES


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_home(tmp_path_factory.mktemp("oauth-grants"), OPEN_LIMITS)


@pytest.fixture(scope="module")
def server(home: Path) -> Iterator[ServerProc]:
    with stopped_cleanly(start_server(home), "serve --http") as proc:
        yield proc


@pytest.fixture(scope="module")
def admin(home: Path) -> str:
    return create_token(home, "operator", "admin")


@pytest.fixture
def client(home: Path) -> NewClient:
    return add_client(home, "grant-tests", redirect_uris=(REDIRECT,))


def _code_tokens(server: ServerProc, client: NewClient, admin: str) -> dict[str, str]:
    verifier, challenge = pkce()
    code = authorize(server.base, client, admin, challenge=challenge)
    response = token_request(server.base, client, grant_type="authorization_code", code=code,
                             code_verifier=verifier, redirect_uri=REDIRECT)
    assert response.status_code == 200, response.text
    body: dict[str, str] = response.json()
    return body


def test_code_exchange_grants_a_working_token(server: ServerProc, client: NewClient,
                                              admin: str) -> None:
    tokens = _code_tokens(server, client, admin)
    assert tokens["scope"] == "read write" and tokens["token_type"] == "Bearer"
    assert mcp_status(server.url, tokens["access_token"]) == 200


def test_wrong_pkce_verifier_is_refused(server: ServerProc, client: NewClient,
                                        admin: str) -> None:
    _verifier, challenge = pkce()
    code = authorize(server.base, client, admin, challenge=challenge)
    other, _ = pkce()
    response = token_request(server.base, client, grant_type="authorization_code", code=code,
                             code_verifier=other, redirect_uri=REDIRECT)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


def test_reused_code_is_refused_and_revokes_its_tokens(server: ServerProc, client: NewClient,
                                                       admin: str) -> None:
    verifier, challenge = pkce()
    code = authorize(server.base, client, admin, challenge=challenge)
    form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
            "redirect_uri": REDIRECT}
    first = token_request(server.base, client, **form)
    assert first.status_code == 200, first.text
    again = token_request(server.base, client, **form)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    # The replay is treated as theft: what the first exchange issued is revoked.
    assert mcp_status(server.url, first.json()["access_token"]) == 401


def test_expired_code_is_refused(home: Path, server: ServerProc, client: NewClient) -> None:
    verifier, challenge = pkce()
    brain = open_brain(load_settings(home, env={}))
    try:  # a code minted an hour ago has outlived its five minutes
        service = OAuthService(brain.store, past_clock(1 / 24))
        code = service.issue_code(service.get_client(client.client.client_id),  # type: ignore[arg-type]
                                  scopes=("read",), redirect_uri=REDIRECT,
                                  code_challenge=challenge, resource=None)
    finally:
        brain.close()
    response = token_request(server.base, client, grant_type="authorization_code", code=code,
                             code_verifier=verifier, redirect_uri=REDIRECT)
    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"


def test_unregistered_redirect_uri_is_refused(server: ServerProc, client: NewClient) -> None:
    _verifier, challenge = pkce()
    response = httpx2.get(f"{server.base}/authorize", params={
        "response_type": "code", "client_id": client.client.client_id,
        "redirect_uri": "http://127.0.0.1:9999/evil", "code_challenge": challenge,
        "code_challenge_method": "S256", "state": "x"})
    # Never redirected to the unregistered URI (RFC 6749 §4.1.2.1).
    assert response.status_code == 400
    assert "evil" not in response.headers.get("location", "")
    assert response.json()["error"] == "invalid_request"


def test_refresh_token_reuse_revokes_the_family(server: ServerProc, client: NewClient,
                                                admin: str) -> None:
    tokens = _code_tokens(server, client, admin)
    rotated = token_request(server.base, client, grant_type="refresh_token",
                            refresh_token=tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    fresh = rotated.json()
    assert fresh["refresh_token"] != tokens["refresh_token"]
    assert mcp_status(server.url, fresh["access_token"]) == 200
    reused = token_request(server.base, client, grant_type="refresh_token",
                           refresh_token=tokens["refresh_token"])
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
    # Every descendant of the stolen token is dead, including the legitimate one.
    assert mcp_status(server.url, fresh["access_token"]) == 401
    after = token_request(server.base, client, grant_type="refresh_token",
                          refresh_token=fresh["refresh_token"])
    assert after.status_code == 400


def test_revoked_token_is_refused(server: ServerProc, client: NewClient, admin: str) -> None:
    tokens = _code_tokens(server, client, admin)
    revoked = httpx2.post(f"{server.base}/revoke", data={
        "token": tokens["access_token"], "client_id": client.client.client_id,
        "client_secret": client.secret or ""})
    assert revoked.status_code == 200, revoked.text
    assert mcp_status(server.url, tokens["access_token"]) == 401
    refresh = token_request(server.base, client, grant_type="refresh_token",
                            refresh_token=tokens["refresh_token"])
    assert refresh.status_code == 400


def test_token_for_another_resource_is_refused(server: ServerProc, client: NewClient,
                                               admin: str) -> None:
    verifier, challenge = pkce()
    code = authorize(server.base, client, admin, challenge=challenge,
                     resource="https://other.example/mcp")
    response = token_request(server.base, client, grant_type="authorization_code", code=code,
                             code_verifier=verifier, redirect_uri=REDIRECT)
    assert response.status_code == 200, response.text
    assert mcp_status(server.url, response.json()["access_token"]) == 401


def test_wrong_client_secret_is_refused(server: ServerProc, client: NewClient) -> None:
    response = httpx2.post(f"{server.base}/token", data={
        "grant_type": "refresh_token", "refresh_token": "bkor_x",
        "client_id": client.client.client_id, "client_secret": "bkcs_wrong"})
    assert response.status_code == 401 and response.json()["error"] == "invalid_client"


# Last in this module on purpose: it spends the module server's sign-in budget
# for 127.0.0.1, which every test here shares.
def test_consent_sign_in_attempts_are_rate_limited(server: ServerProc, client: NewClient,
                                                   admin: str) -> None:
    """Guessing the operator password is throttled: 429 with Retry-After, even for the right one.

    Spread over fresh requests: one request is dropped after MAX_LOGIN_FAILURES
    wrong sign-ins anyway (tests/http/test_oauth_consent.py), the limit is per address.
    """
    _, challenge = pkce()
    params = {"response_type": "code", "client_id": client.client.client_id,
              "redirect_uri": REDIRECT, "code_challenge": challenge,
              "code_challenge_method": "S256", "state": "s1", "resource": server.url}

    def ticket() -> str:
        hop = httpx2.get(f"{server.base}/authorize", params=params)
        page = httpx2.get(hop.headers["location"])
        found = re.search(r'name="request" value="([^"]+)"', page.text)
        assert found, page.text
        return found.group(1)

    codes = []
    for _ in range(3):
        current = ticket()
        codes += [httpx2.post(f"{server.base}/oauth/consent", data={
            "request": current, "login": f"guess-{len(codes)}", "decision": "approve"}
        ).status_code for _ in range(MAX_LOGIN_FAILURES - 1)]
    assert codes[0] == 403 and codes[-1] == 429, codes
    throttled = httpx2.post(f"{server.base}/oauth/consent", data={
        "request": ticket(), "login": admin, "decision": "approve"})
    assert throttled.status_code == 429 and throttled.headers["retry-after"]

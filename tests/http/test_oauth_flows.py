"""OAuth 2.1 on `serve --http`, end to end with the official SDK client.

Authorization code + PKCE (consent answered through the real form) and client
credentials, each followed by `remember` and `recall`; plus discovery metadata.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from http_support import OPEN_LIMITS, ServerProc, call, create_token, make_home, run, start_server
from oauth_support import (
    REDIRECT,
    Consent,
    add_client,
    code_provider,
    machine_provider,
    oauth_session,
    storage_for,
)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_home(tmp_path_factory.mktemp("oauth-flows"), OPEN_LIMITS)


@pytest.fixture(scope="module")
def server(home: Path) -> Iterator[ServerProc]:
    proc = start_server(home)
    yield proc
    assert proc.stop() == 0


@pytest.fixture(scope="module")
def admin(home: Path) -> str:
    return create_token(home, "operator", "admin")


def test_discovery_metadata_names_this_server(server: ServerProc) -> None:
    prm = httpx2.get(server.base + "/.well-known/oauth-protected-resource/mcp").json()
    assert prm["resource"] == server.url and prm["authorization_servers"] == [server.base]
    meta = httpx2.get(server.base + "/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == server.base
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert "client_credentials" in meta["grant_types_supported"]
    assert "registration_endpoint" not in meta  # off by default
    challenge = httpx2.post(server.url, json={}).headers["www-authenticate"]
    assert 'resource_metadata="' + server.base in challenge


def test_authorization_code_pkce_flow_then_remember_and_recall(
    home: Path, server: ServerProc, admin: str
) -> None:
    created = add_client(home, "claude-desktop", redirect_uris=(REDIRECT,))
    storage = storage_for(created)
    consent = Consent(admin)

    async def body() -> None:
        async with oauth_session(server.url, code_provider(server.url, storage, consent)) as s:
            error, out = await call(s, "remember", {
                "fact": "OAuth flows keep Ada's tea preference", "provenance": "oauth test"})
            assert not error, out
            error, out = await call(s, "recall", {"query": "Ada tea preference OAuth"})
            assert not error, out
            assert any("OAuth flows" in str(item) for item in out.get("facts", out.get("results",
                                                                                        [])))

    run(body)
    assert "claude-desktop" in consent.pages[0] and "read" in consent.pages[0]
    assert storage.tokens is not None and storage.tokens.access_token.startswith("bkoa_")
    assert storage.tokens.refresh_token and storage.tokens.refresh_token.startswith("bkor_")
    # Secrets never reach the log.
    assert storage.tokens.access_token not in server.stderr()
    assert created.secret and created.secret not in server.stderr()


def test_operator_password_also_approves(home: Path, server: ServerProc) -> None:
    from brainkeep.brain import open_brain
    from brainkeep.config import load_settings
    from brainkeep.core.oauth.password import set_admin_password

    brain = open_brain(load_settings(home, env={}))
    try:
        set_admin_password(brain.store, "correct horse battery")
    finally:
        brain.close()
    created = add_client(home, "chatgpt", redirect_uris=(REDIRECT,), confidential=False)
    storage = storage_for(created)

    async def body() -> None:
        provider = code_provider(server.url, storage, Consent("correct horse battery"))
        async with oauth_session(server.url, provider) as s:
            error, out = await call(s, "recall", {"query": "anything"})
            assert not error, out

    run(body)


def test_wrong_operator_login_is_refused(home: Path, server: ServerProc) -> None:
    created = add_client(home, "perplexity", redirect_uris=(REDIRECT,))

    consent = Consent("not-the-password")

    async def body() -> None:
        async with oauth_session(server.url, code_provider(server.url, storage_for(created),
                                                           consent)):
            pass

    with pytest.raises(BaseException):  # noqa: B017 (the SDK wraps the refusal)
        run(body)
    assert consent.refused is not None and "Wrong admin token or password" in consent.refused


def test_client_credentials_then_remember_and_recall(home: Path, server: ServerProc) -> None:
    created = add_client(home, "ci-bot", grant_types=("client_credentials",),
                         scopes="read,write")

    async def body() -> None:
        async with oauth_session(server.url, machine_provider(server.url, created)) as s:
            error, out = await call(s, "remember", {
                "fact": "The CI bot deployed build 4471", "provenance": "oauth machine"})
            assert not error, out
            error, out = await call(s, "recall", {"query": "CI bot deployed build"})
            assert not error, out
            assert "4471" in str(out)

    run(body)

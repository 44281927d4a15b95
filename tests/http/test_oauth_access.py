"""What an OAuth token may do: scopes, tenant binding, and dynamic registration.

OAuth access tokens meet the same scope checks (``scope_denied``) and the
same org/agent fences as bearer tokens; registration (RFC 7591) is off unless
`serve --http --allow-registration`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from http_support import OPEN_LIMITS, ServerProc, call, create_token, make_home, run, start_server
from oauth_support import (
    Consent,
    MemoryStorage,
    add_client,
    code_provider,
    machine_provider,
    oauth_session,
)

from brainkeep.core.oauth.service import NewClient


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_home(tmp_path_factory.mktemp("oauth-access"), OPEN_LIMITS)


@pytest.fixture(scope="module")
def server(home: Path) -> Iterator[ServerProc]:
    proc = start_server(home)
    yield proc
    assert proc.stop() == 0


def _machine(home: Path, name: str, scopes: str = "read,write", **binding: str) -> NewClient:
    return add_client(home, name, grant_types=("client_credentials",), scopes=scopes, **binding)


def _call(server: ServerProc, created: NewClient, name: str, args: dict[str, object]
          ) -> tuple[bool, dict[str, object]]:
    async def body() -> tuple[bool, dict[str, object]]:
        async with oauth_session(server.url, machine_provider(server.url, created)) as s:
            result: tuple[bool, dict[str, object]] = await call(s, name, args)
            return result

    outcome: tuple[bool, dict[str, object]] = run(body)
    return outcome


def test_read_token_calling_remember_is_scope_denied(home: Path, server: ServerProc) -> None:
    reader = _machine(home, "reader-bot", scopes="read")
    is_error, payload = _call(server, reader, "remember",
                              {"fact": "Readers cannot write", "provenance": "oauth test"})
    assert is_error and payload["error"] == "scope_denied"
    is_error, payload = _call(server, reader, "recall", {"query": "anything"})
    assert not is_error, payload


def test_token_bound_to_org_a_cannot_read_org_b(home: Path, server: ServerProc) -> None:
    org_a = _machine(home, "bot-a", org_id="org-a", agent_id="agent-a")
    org_b = _machine(home, "bot-b", org_id="org-b", agent_id="agent-b")
    fact = "Org A's vault code is mauve-otter-5521"
    is_error, payload = _call(server, org_a, "remember", {"fact": fact, "provenance": "a"})
    assert not is_error, payload
    _err, mine = _call(server, org_a, "recall", {"query": "vault code mauve otter"})
    assert "mauve-otter-5521" in str(mine)  # the control: the writer's tenant sees it
    _err, theirs = _call(server, org_b, "recall", {"query": "vault code mauve otter"})
    assert "mauve-otter-5521" not in str(theirs)


def test_registration_is_disabled_by_default(server: ServerProc) -> None:
    response = httpx2.post(f"{server.base}/register", json={
        "redirect_uris": ["http://127.0.0.1:1/cb"], "client_name": "stranger"})
    assert response.status_code == 404
    meta = httpx2.get(f"{server.base}/.well-known/oauth-authorization-server").json()
    assert "registration_endpoint" not in meta


def test_allow_registration_lets_the_sdk_register_itself(tmp_path: Path) -> None:
    home = make_home(tmp_path / "dcr", OPEN_LIMITS)
    admin = create_token(home, "operator", "admin")
    proc = start_server(home, "--allow-registration")
    storage = MemoryStorage()  # no client: the SDK registers one (RFC 7591)
    try:
        async def body() -> None:
            provider = code_provider(proc.url, storage, Consent(admin))
            async with oauth_session(proc.url, provider) as s:
                is_error, payload = await call(s, "recall", {"query": "anything"})
                assert not is_error, payload

        run(body)
    finally:
        assert proc.stop() == 0
    assert storage.client is not None and storage.client.client_secret
    assert storage.client.client_secret not in proc.stderr()


def test_public_url_sets_the_issuer_and_resource(tmp_path: Path) -> None:
    """Behind a tunnel the metadata must name the URL clients reach, not the bind."""
    home = make_home(tmp_path / "tunnel", OPEN_LIMITS)
    proc = start_server(home, "--public-url", "https://brain.example.com")
    try:
        meta = httpx2.get(f"{proc.base}/.well-known/oauth-authorization-server").json()
        prm = httpx2.get(f"{proc.base}/.well-known/oauth-protected-resource/mcp").json()
        challenge = httpx2.post(proc.url, json={}).headers["www-authenticate"]
    finally:
        assert proc.stop() == 0
    assert meta["issuer"] == "https://brain.example.com"
    assert meta["token_endpoint"] == "https://brain.example.com/token"
    assert prm["resource"] == "https://brain.example.com/mcp"
    assert prm["authorization_servers"] == ["https://brain.example.com"]
    assert ('resource_metadata="https://brain.example.com/.well-known/'
            'oauth-protected-resource/mcp"') in challenge

"""Bearer auth over a real socket: the 401 matrix, scopes end to end, usage stats."""

from __future__ import annotations

import json

import httpx
import pytest
from http_support import ServedBrain, ServerProc, call, create_token, mcp_session, revoke_token, run

LIST_TOOLS = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


def post(server: ServerProc, secret: str | None, body: object = LIST_TOOLS) -> httpx.Response:
    headers = dict(HEADERS)
    if secret is not None:
        headers["Authorization"] = f"Bearer {secret}"
    return httpx.post(server.url, json=body, headers=headers, timeout=30)


def test_health_needs_no_token(server: ServerProc) -> None:
    response = httpx.get(server.base + "/health", timeout=10)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["version"]


def test_missing_token_is_401_with_challenge(server: ServerProc) -> None:
    response = post(server, None)
    assert response.status_code == 401
    # RFC 6750 §3.1: no error code without credentials; the RFC 9728 pointer
    # (OAuth discovery for MCP clients) is the only addition.
    assert response.headers["www-authenticate"] == (
        f'Bearer realm="brainkeep", resource_metadata="{server.base}'
        '/.well-known/oauth-protected-resource/mcp"')
    body = response.json()
    assert body["error"]["data"]["reason"] == "missing"
    assert "brainkeep token create" in body["error"]["data"]["suggestion"]


@pytest.mark.parametrize(
    ("role", "reason"),
    [("bad", "invalid"), ("malformed", "invalid"), ("expired", "expired"),
     ("revoked", "revoked")],
)
def test_refused_tokens_are_401(
    server: ServerProc, served: ServedBrain, role: str, reason: str
) -> None:
    secret = {
        "bad": served.tokens["rw"][:-4] + "AAAA",  # right id, wrong secret
        "malformed": "not-a-token",
    }.get(role) or served.tokens[role]
    response = post(server, secret)
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith('Bearer realm="brainkeep", error="invalid_token"')
    assert response.json()["error"]["data"]["reason"] == reason
    assert secret not in response.text


def test_basic_auth_scheme_is_not_a_bearer_token(server: ServerProc, served: ServedBrain) -> None:
    response = httpx.post(
        server.url,
        json=LIST_TOOLS,
        headers={**HEADERS, "Authorization": f"Basic {served.tokens['rw']}"},
        timeout=30,
    )
    assert response.status_code == 401


def test_official_client_without_token_cannot_connect(server: ServerProc) -> None:
    async def body() -> None:
        try:
            async with mcp_session(server.url, None):
                pass
        except BaseException as exc:  # the SDK may wrap it in exception groups
            assert "Missing bearer token" in repr(_innermost(exc)), repr(exc)
        else:
            raise AssertionError("connected without a token")

    run(body)


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def test_read_token_gets_scope_denied_on_writes(server: ServerProc, served: ServedBrain) -> None:
    async def body() -> None:
        async with mcp_session(server.url, served.tokens["ro"]) as session:
            is_error, payload = await call(
                session, "remember", {"fact": "ro write", "provenance": "test"}
            )
            assert is_error
            assert payload["error"] == "scope_denied"
            assert payload["protocol_version"] == 1
            assert "`write`" in payload["suggestion"]
            is_error, payload = await call(session, "forget", {"id": "1"})
            assert is_error and payload["error"] == "scope_denied"
            # A page write is an ordinary op: its envelope has no protocol_version.
            is_error, payload = await call(
                session, "put_page", {"slug": "notes/x", "content": "# X\n"}
            )
            assert is_error and payload["error"] == "scope_denied"
            is_error, payload = await call(session, "recall", {"entity": "people/ada-example"})
            assert not is_error and payload["total"] >= 1

    run(body)


def test_write_and_admin_tokens_may_write(server: ServerProc, served: ServedBrain) -> None:
    async def body() -> None:
        for role in ("rw", "admin"):
            async with mcp_session(server.url, served.tokens[role]) as session:
                is_error, payload = await call(
                    session, "remember",
                    {"fact": f"{role} token wrote this", "provenance": "auth test"},
                )
                assert not is_error and payload["status"] == "inserted", payload
                is_error, payload = await call(
                    session, "put_page", {"slug": f"notes/{role}-page", "content": "# Note\n"}
                )
                assert not is_error, payload

    run(body)


def test_revocation_applies_to_a_running_server(server: ServerProc, served: ServedBrain) -> None:
    secret = create_token(served.home, "short-lived", "read")
    assert post(server, secret).status_code == 200
    revoke_token(served.home, "short-lived")
    response = post(server, secret)
    assert response.status_code == 401
    assert response.json()["error"]["data"]["reason"] == "revoked"


def test_usage_log_names_the_token_never_the_secret(
    server: ServerProc, served: ServedBrain
) -> None:
    async def body() -> None:
        async with mcp_session(server.url, served.tokens["rw2"]) as session:
            await call(session, "entity", {"name": "Ada Example"})

    run(body)
    text = (served.home / "usage.jsonl").read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    mine = [e for e in lines if e.get("token_name") == "rw-agent-2"]
    assert mine and all(e["transport"] == "http" and e["remote"] is True for e in mine)
    for secret in served.tokens.values():
        assert secret not in text

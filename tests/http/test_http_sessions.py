"""Sessions where clients keep one, stateless everywhere else (mcp/routing.py)."""

from __future__ import annotations

import json

import httpx
from http_support import ServedBrain, ServerProc

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "session-test", "version": "1"}},
}


def rpc(server: ServerProc, secret: str, body: dict, **extra: str) -> httpx.Response:
    headers = {**HEADERS, "Authorization": f"Bearer {secret}", **extra}
    return httpx.post(server.url, content=json.dumps(body), headers=headers, timeout=30)


def whoami(server: ServerProc, secret: str, **extra: str) -> dict:
    """One entity lookup; the seeded page makes it found."""
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "entity", "arguments": {"name": "Ada Example"}}}
    response = rpc(server, secret, call, **extra)
    assert response.status_code == 200, response.text
    return json.loads(response.json()["result"]["content"][0]["text"])


def test_initialize_opens_a_session_that_serves_calls(
    server: ServerProc, served: ServedBrain
) -> None:
    opened = rpc(server, served.tokens["rw"], INIT)
    assert opened.status_code == 200
    session = opened.headers["mcp-session-id"]
    extra = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert rpc(server, served.tokens["rw"], note, **extra).status_code == 202
    assert whoami(server, served.tokens["rw"], **extra)["found"] is True
    ended = httpx.delete(server.url, headers={**extra, "Authorization":
                                              f"Bearer {served.tokens['rw']}"}, timeout=30)
    assert ended.status_code in (200, 204)


def test_unknown_session_is_served_statelessly(server: ServerProc, served: ServedBrain) -> None:
    # What a client sees after a server restart: its old session id is unknown.
    extra = {"Mcp-Session-Id": "0" * 32, "MCP-Protocol-Version": "2025-11-25"}
    assert whoami(server, served.tokens["ro"], **extra)["found"] is True


def test_another_tokens_session_runs_as_the_presenting_token(
    server: ServerProc, served: ServedBrain
) -> None:
    opened = rpc(server, served.tokens["rw"], INIT)
    extra = {"Mcp-Session-Id": opened.headers["mcp-session-id"],
             "MCP-Protocol-Version": "2025-11-25"}
    remember = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "remember",
                           "arguments": {"fact": "hijack attempt", "provenance": "test"}}}
    # The read-only token presents the read-write token's session id: it is
    # judged by its own token (scope_denied), never by the session's opener.
    response = rpc(server, served.tokens["ro"], remember, **extra)
    assert response.status_code == 200
    payload = json.loads(response.json()["result"]["content"][0]["text"])
    assert payload["error"] == "scope_denied"

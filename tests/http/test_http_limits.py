"""Limits over a real socket: rate limits (429), body cap (413), malformed JSON, bind guard."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
from http_support import ServedBrain, ServerProc, make_home, serve_command, server_env

LIST_TOOLS = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-11-25",
}


def post(url: str, secret: str, content: bytes | Iterator[bytes] | None = None) -> httpx.Response:
    headers = {**HEADERS, "Authorization": f"Bearer {secret}"}
    if content is None:
        return httpx.post(url, json=LIST_TOOLS, headers=headers, timeout=30)
    return httpx.post(url, content=content, headers=headers, timeout=30)


def test_rate_limits_per_token_then_per_address(
    limited: tuple[ServerProc, ServedBrain],
) -> None:
    server, tight = limited
    statuses = [post(server.url, tight.tokens["a"]).status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
    refused = post(server.url, tight.tokens["a"])
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) >= 1
    body = refused.json()
    assert body["error"]["data"]["error"] == "rate_limited"
    assert "limit-a" in body["error"]["message"]
    # Another token still has its own budget, until the address budget (6/min) runs out.
    assert [post(server.url, tight.tokens["b"]).status_code for _ in range(2)] == [200, 200]
    by_address = post(server.url, tight.tokens["b"])
    assert by_address.status_code == 429
    assert "address" in by_address.json()["error"]["message"]
    assert int(by_address.headers["retry-after"]) >= 1


def test_body_over_the_cap_is_413(server: ServerProc, served: ServedBrain) -> None:
    pad = b"x" * 70_000
    big = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"' + pad + b'"}}'
    declared = post(server.url, served.tokens["rw"], big)
    assert declared.status_code == 413
    assert declared.json()["error"]["data"]["max_body_bytes"] == 65_536

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap applies while streaming
        for start in range(0, len(big), 8192):
            yield big[start:start + 8192]

    streamed = post(server.url, served.tokens["rw"], chunks())
    assert streamed.status_code == 413


def test_malformed_json_rpc_gets_json_rpc_errors(server: ServerProc, served: ServedBrain) -> None:
    for body in (b"{not json", b"[1, 2", b'{"foo": 1}', b"[]", b'"just a string"'):
        response = post(server.url, served.tokens["rw"], body)
        assert 400 <= response.status_code < 500, (body, response.status_code)
        payload = response.json()
        assert payload["jsonrpc"] == "2.0" and "error" in payload, payload
        assert "Traceback" not in response.text
    assert "Traceback" not in server.stderr()


def test_non_loopback_bind_without_tokens_refuses_to_start(tmp_path: Path) -> None:
    home = make_home(tmp_path / "home")
    result = subprocess.run(
        serve_command("--bind", "0.0.0.0", "--port", "0"),
        env=server_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2  # invalid_params: the --bind given is not acceptable
    assert "Refusing to serve on 0.0.0.0" in result.stderr
    assert "brainkeep token create" in result.stderr

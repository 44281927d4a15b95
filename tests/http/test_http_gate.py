"""The gate in process: deadline (504), crash (500), limiter arithmetic, bind guard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from http_support import create_token, make_home

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.tokens import TokenService
from brainkeep.errors import InvalidInput
from brainkeep.http_app import check_bind_allowed, is_loopback
from brainkeep.mcp.auth import CALLER_SCOPE_KEY, bearer_secret, caller_from_request
from brainkeep.mcp.gate import GateLimits, McpGate
from brainkeep.rate_limits import RateLimiter, retry_after_header


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_refills_at_the_configured_rate() -> None:
    clock = FakeClock()
    limiter = RateLimiter(60, clock=clock)  # one per second, bursts of 60
    assert all(limiter.acquire("k") == 0.0 for _ in range(60))
    wait = limiter.acquire("k")
    assert wait == pytest.approx(1.0)
    assert retry_after_header(wait) == "1"
    clock.now += 1.0
    assert limiter.acquire("k") == 0.0
    assert limiter.acquire("other") == 0.0  # keys are independent
    assert RateLimiter(0).acquire("k") == 0.0  # 0 disables


def test_bearer_parsing() -> None:
    assert bearer_secret([(b"authorization", b"Bearer abc")]) == "abc"
    assert bearer_secret([(b"Authorization", b"bearer  abc ")]) == "abc"
    assert bearer_secret([(b"authorization", b"Basic abc")]) is None
    assert bearer_secret([(b"authorization", b"Bearer ")]) is None
    assert bearer_secret([]) is None


def test_handler_without_gate_gets_no_scopes() -> None:
    class Req:
        scope: dict[str, Any] = {}

    caller = caller_from_request(Req())
    assert caller.remote and caller.scopes == frozenset()
    assert caller_from_request(None).scopes == frozenset()


@pytest.mark.parametrize(
    ("bind", "loopback"),
    [("127.0.0.1", True), ("127.5.0.1", True), ("::1", True), ("[::1]", True),
     ("localhost", True), ("0.0.0.0", False), ("::", False), ("192.168.1.4", False),
     ("example.org", False)],
)
def test_is_loopback(bind: str, loopback: bool) -> None:
    assert is_loopback(bind) is loopback


def test_bind_guard_needs_a_usable_token(tmp_path: Path) -> None:
    home = make_home(tmp_path / "home")
    brain = open_brain(load_settings(home, env={}))
    try:
        tokens = TokenService(brain.store, brain.clock)
        check_bind_allowed("127.0.0.1", tokens)
        with pytest.raises(InvalidInput, match="Refusing"):
            check_bind_allowed("0.0.0.0", tokens)
        tokens.create("later", "read")
        check_bind_allowed("0.0.0.0", tokens)
        tokens.revoke("later")
        with pytest.raises(InvalidInput):
            check_bind_allowed("0.0.0.0", tokens)
    finally:
        brain.close()


async def _slow_app(scope: dict, receive: Any, send: Any) -> None:
    await anyio.sleep(5)


async def _crashing_app(scope: dict, receive: Any, send: Any) -> None:
    raise RuntimeError("boom: internal detail")


async def _echo_caller_app(scope: dict, receive: Any, send: Any) -> None:
    body = (await receive())["body"]
    caller = scope[CALLER_SCOPE_KEY]
    text = f'{{"client": "{caller.client_id}", "len": {len(body)}}}'.encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": text})


def _gate(tmp_path: Path, app: Any, timeout: float = 0.3) -> tuple[McpGate, str]:
    home = make_home(tmp_path / "home")
    secret = create_token(home, "gate-test", "read")
    brain = open_brain(load_settings(home, env={}))
    gate = McpGate(
        app,
        tokens=TokenService(brain.store, brain.clock),
        ip_limiter=RateLimiter(0),
        token_limiter=RateLimiter(0),
        limits=GateLimits(max_body_bytes=1024, request_timeout_s=timeout),
    )
    return gate, secret


def _post(gate: McpGate, secret: str, body: bytes) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=gate)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.post(
                "/mcp", content=body, headers={"Authorization": f"Bearer {secret}"}
            )

    return anyio.run(go)


def test_deadline_answers_504_with_the_request_id(tmp_path: Path) -> None:
    gate, secret = _gate(tmp_path, _slow_app)
    response = _post(gate, secret, b'{"jsonrpc":"2.0","id":42,"method":"tools/call"}')
    assert response.status_code == 504
    body = response.json()
    assert body["id"] == 42 and body["error"]["code"] == -32003


def test_crash_answers_500_without_a_trace(tmp_path: Path) -> None:
    gate, secret = _gate(tmp_path, _crashing_app)
    response = _post(gate, secret, b'{"jsonrpc":"2.0","id":"a","method":"tools/list"}')
    assert response.status_code == 500
    assert response.json()["id"] == "a"
    assert "boom" not in response.text and "Traceback" not in response.text


def test_authenticated_caller_reaches_the_app(tmp_path: Path) -> None:
    gate, secret = _gate(tmp_path, _echo_caller_app)
    response = _post(gate, secret, b"{}")
    assert response.json() == {"client": "token:gate-test", "len": 2}
    assert _post(gate, secret, b"x" * 2000).status_code == 413


async def _stalling_stream_app(scope: dict, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream")]})
    await send({"type": "http.response.body", "body": b": ping\n\n", "more_body": True})
    await anyio.sleep(5)


def test_deadline_closes_a_started_stream(tmp_path: Path) -> None:
    gate, secret = _gate(tmp_path, _stalling_stream_app)
    response = _post(gate, secret, b"{}")
    assert response.status_code == 200 and response.text == ": ping\n\n"


def test_get_is_405_without_touching_the_app(tmp_path: Path) -> None:
    gate, _secret = _gate(tmp_path, _crashing_app)

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=gate)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.get("/mcp")

    response = anyio.run(go)
    assert response.status_code == 405 and response.headers["allow"] == "POST"


def test_is_initialize() -> None:
    from brainkeep.mcp.routing import is_initialize

    assert is_initialize(b'{"jsonrpc": "2.0", "id": 1, "method" : "initialize", "params": {}}')
    assert not is_initialize(b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
                             b'"params":{"name":"remember","arguments":{"fact":"\\"initialize\\""}}}')
    assert not is_initialize(b'{"initialize"')
    assert not is_initialize(b'["initialize"]')

"""X-Forwarded-For is believed only from the proxies the operator names (issue 21 item 3).

uvicorn trusts forwarded headers from loopback by default, so a client on
this machine (or behind a local tunnel) rotating ``X-Forwarded-For`` was a
new address to every per-IP limit: the ``/mcp`` limiter and the consent
sign-in limiter never answered 429.
"""

from __future__ import annotations

import math
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from conn_support import address_of, read_status, request_bytes, sockets
from http_support import (
    OPEN_LIMITS,
    ServerProc,
    make_home,
    serve_command,
    server_env,
    start_server,
    stopped_cleanly,
)
from oauth_support import REDIRECT, add_client, pkce

from brainkeep.asgi_server import ConnectionLimits, server_config
from brainkeep.mcp.oauth_routes import LOGINS_PER_MINUTE

IP_RATE = 5
RPC = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProc, Path]]:
    """Default settings (no proxy trusted), a low per-IP rate."""
    home = make_home(tmp_path_factory.mktemp("fwd-strict") / "home",
                     {**OPEN_LIMITS, "http.ip_rate_per_minute": IP_RATE})
    with stopped_cleanly(start_server(home), "server") as server:
        yield server, home


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    """`--forwarded-allow-ips 127.0.0.1`: a local reverse proxy, and a low address cap."""
    home = make_home(tmp_path_factory.mktemp("fwd-proxied") / "home",
                     {**OPEN_LIMITS, "http.ip_rate_per_minute": IP_RATE,
                      "http.max_connections_per_address": 4})
    with stopped_cleanly(start_server(home, "--forwarded-allow-ips", "127.0.0.1"),
                         "server") as server:
        yield server


def mcp_statuses(url: str, forwarded: list[str]) -> list[int]:
    with httpx2.Client(timeout=10) as client:
        return [client.post(url, json=RPC, headers={**ACCEPT, "X-Forwarded-For": xff})
                .status_code for xff in forwarded]


def test_rotating_forwarded_for_on_mcp_is_still_rate_limited(
        strict: tuple[ServerProc, Path]) -> None:
    server, _home = strict
    statuses = mcp_statuses(server.url, [f"203.0.113.{i}" for i in range(1, 3 * IP_RATE)])
    # The socket peer (127.0.0.1) is the key: its bucket of IP_RATE runs out.
    assert 429 in statuses, statuses
    assert statuses[:IP_RATE] == [401] * IP_RATE, statuses


def consent_ticket(base: str, client_id: str) -> str:
    """A fresh pending authorization request (a request is dropped after a few wrong logins)."""
    _verifier, challenge = pkce()
    hop = httpx2.get(f"{base}/authorize", params={
        "response_type": "code", "client_id": client_id,
        "redirect_uri": REDIRECT, "code_challenge": challenge,
        "code_challenge_method": "S256", "state": "s1", "resource": f"{base}/mcp"})
    assert hop.status_code == 302, hop.text
    page = httpx2.get(hop.headers["location"])
    found = re.search(r'name="request" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def test_rotating_forwarded_for_on_consent_is_still_rate_limited(
        strict: tuple[ServerProc, Path]) -> None:
    server, home = strict
    client_id = add_client(home, "fwd-client", redirect_uris=(REDIRECT,)).client.client_id
    statuses = []
    start = time.monotonic()
    with httpx2.Client(timeout=10) as client:
        for i in range(LOGINS_PER_MINUTE + 5):
            answer = client.post(f"{server.base}/oauth/consent", headers={
                "X-Forwarded-For": f"198.51.100.{i + 1}"}, data={
                "request": consent_ticket(server.base, client_id), "login": f"guess-{i}",
                "decision": "approve"})
            statuses.append(answer.status_code)
    elapsed = time.monotonic() - start
    assert statuses[:LOGINS_PER_MINUTE] == [403] * LOGINS_PER_MINUTE, statuses
    # One bucket for all of them: a minute's allowance plus what refilled meanwhile.
    refilled = math.ceil(elapsed * LOGINS_PER_MINUTE / 60)
    assert 429 in statuses and statuses.count(403) <= LOGINS_PER_MINUTE + refilled, statuses


def test_a_named_proxy_is_believed(proxied: ServerProc) -> None:
    # Behind the trusted proxy each forwarded address has its own bucket ...
    distinct = mcp_statuses(proxied.url, [f"192.0.2.{i}" for i in range(1, 3 * IP_RATE)])
    assert 429 not in distinct, distinct
    # ... and one forwarded address is limited as a client would be.
    same = mcp_statuses(proxied.url, ["192.0.2.200"] * (2 * IP_RATE))
    assert 429 in same, same
    assert "believed from 127.0.0.1 only" in proxied.stderr()


def test_a_named_proxy_is_exempt_from_the_address_cap(proxied: ServerProc) -> None:
    # Every client behind a proxy shares its address; the cap (4 here) would
    # throttle all of them together.
    addr = address_of(proxied.base)
    with sockets(addr, 6) as held:
        for sock in held:
            sock.sendall(request_bytes())
            assert read_status(sock) == 200


def test_a_malformed_proxy_list_is_refused(strict: tuple[ServerProc, Path]) -> None:
    _server, home = strict
    result = subprocess.run(serve_command("--port", "0", "--forwarded-allow-ips",
                                          "127.0.0.1,proxy.example"),
                            env=server_env(home), capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 2, result.stderr
    assert "'proxy.example' is not an IP address or network" in result.stderr


def test_proxy_headers_are_off_unless_a_proxy_is_named() -> None:
    """The one rule both servers share (`ui` never names a proxy)."""
    off = server_config(object(), ConnectionLimits())
    assert off.proxy_headers is False
    on = server_config(object(), ConnectionLimits(forwarded_allow_ips=("10.0.0.0/8",)))
    assert on.proxy_headers is True and on.forwarded_allow_ips == "10.0.0.0/8"

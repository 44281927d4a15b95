"""Slow-header connections are closed; one address cannot hold every slot (issue 21 item 8).

uvicorn has no header timeout: a client trickling one header byte at a time
kept its connection (and one of the 512 concurrency slots) forever. Now
`serve --http` and `ui` close a connection whose request headers are not
complete within ``http.header_timeout_s`` (2 s in these tests), and refuse
more than ``http.max_connections_per_address`` open connections per address.
"""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conn_support import (
    UiProc,
    address_of,
    closed_by_peer,
    read_status,
    request_bytes,
    sockets,
    start_ui,
    trickle,
)
from http_support import OPEN_LIMITS, ServerProc, make_home, start_server, stopped_cleanly

from brainkeep.asgi_server import ConnectionGuard, ConnectionLimits

HEADER_TIMEOUT_S = 2.0
FLOOD = 80
CAP = 8
# A closed connection must be seen within this long after the timeout passed.
SLACK_S = 4.0
PARTIAL = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


@pytest.fixture(scope="module")
def quick_timeout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    home = make_home(tmp_path_factory.mktemp("slow-headers") / "home",
                     {**OPEN_LIMITS, "http.header_timeout_s": HEADER_TIMEOUT_S,
                      "http.max_connections_per_address": 1000})
    with stopped_cleanly(start_server(home), "server") as server:
        yield server


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    home = make_home(tmp_path_factory.mktemp("address-cap") / "home",
                     {**OPEN_LIMITS, "http.max_connections_per_address": CAP})
    with stopped_cleanly(start_server(home), "server") as server:
        yield server


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiProc]:
    home: Path = make_home(tmp_path_factory.mktemp("ui-slow") / "home",
                           {"http.header_timeout_s": HEADER_TIMEOUT_S})
    with stopped_cleanly(start_ui(home), "ui") as proc:
        yield proc


def trickle_until_closed(flood: list[socket.socket], *, every_s: float,
                         during: float) -> tuple[set[int], float]:
    """Send each open socket one header byte per ``every_s`` for at most ``during`` s.

    Returns the indexes the server closed, and when the last of them was seen closed.
    """
    closed: set[int] = set()
    start = time.monotonic()
    last = 0.0
    while len(closed) < len(flood) and time.monotonic() - start < during:
        for i, sock in enumerate(flood):
            if i not in closed and (closed_by_peer(sock) or not trickle(sock, b"a")):
                closed.add(i)
                last = time.monotonic() - start
        time.sleep(every_s)
    return closed, last


def test_a_slow_header_flood_is_closed_and_locks_nobody_out(quick_timeout: ServerProc) -> None:
    addr = address_of(quick_timeout.base)
    with sockets(addr, FLOOD) as flood:
        for sock in flood:
            sock.sendall(PARTIAL)
        # A normal client is served while the flood trickles.
        start = time.monotonic()
        conn = http.client.HTTPConnection(*addr, timeout=5)
        try:
            conn.request("GET", "/health")
            assert conn.getresponse().status == 200
        finally:
            conn.close()
        assert time.monotonic() - start < HEADER_TIMEOUT_S
        closed, last = trickle_until_closed(flood, every_s=1.0,
                                            during=HEADER_TIMEOUT_S + SLACK_S)
    assert len(closed) == FLOOD, f"{FLOOD - len(closed)} trickling connections still open"
    assert last <= HEADER_TIMEOUT_S + SLACK_S


def test_a_silent_connection_is_closed(quick_timeout: ServerProc) -> None:
    with sockets(address_of(quick_timeout.base), 1) as (sock,):
        start = time.monotonic()
        while not closed_by_peer(sock) and time.monotonic() - start < HEADER_TIMEOUT_S + SLACK_S:
            time.sleep(0.1)
        waited = time.monotonic() - start
    assert HEADER_TIMEOUT_S - 0.5 <= waited < HEADER_TIMEOUT_S + SLACK_S


def test_the_next_keepalive_request_has_a_header_deadline_too(
        quick_timeout: ServerProc) -> None:
    addr = address_of(quick_timeout.base)
    with sockets(addr, 1) as (sock,):
        sock.sendall(request_bytes())
        assert read_status(sock) == 200
        # Each byte resets uvicorn's 5 s keep-alive timer; only the header deadline ends this.
        closed, last = trickle_until_closed([sock], every_s=0.4,
                                            during=HEADER_TIMEOUT_S + SLACK_S)
    assert closed == {0}, "a keep-alive connection trickled its next request forever"
    assert last <= HEADER_TIMEOUT_S + SLACK_S


def test_connections_over_the_address_cap_are_refused(capped: ServerProc) -> None:
    addr = address_of(capped.base)
    with sockets(addr, CAP) as held:
        for sock in held:
            sock.sendall(PARTIAL)  # open, counted, and far from their 10 s deadline
        with sockets(addr, 1) as (extra,):
            extra.sendall(request_bytes())
            assert read_status(extra) in (503, None)
        # A slot freed is a slot another connection can use.
        held[0].close()
        deadline = time.monotonic() + 5.0
        status = None
        while status != 200 and time.monotonic() < deadline:
            with sockets(addr, 1) as (retry,):
                retry.sendall(request_bytes())
                status = read_status(retry)
            if status != 200:
                time.sleep(0.1)
        assert status == 200


def test_the_cap_counts_each_address_apart() -> None:
    """Per address, not in total (the real-socket tests can only use 127.0.0.1)."""
    guard = ConnectionGuard(ConnectionLimits(max_per_address=2))
    assert guard.admit("192.0.2.1") and guard.admit("192.0.2.1")
    assert not guard.admit("192.0.2.1")
    assert guard.admit("192.0.2.2")
    guard.release("192.0.2.1")
    assert guard.admit("192.0.2.1")
    proxied = ConnectionGuard(ConnectionLimits(max_per_address=1,
                                               forwarded_allow_ips=("10.0.0.0/8",)))
    assert all(proxied.admit("10.1.2.3") for _ in range(5))


def test_the_console_closes_slow_headers_too(ui: UiProc) -> None:
    addr = address_of(ui.base)
    with sockets(addr, 5) as flood:
        for sock in flood:
            sock.sendall(PARTIAL)
        closed, _last = trickle_until_closed(flood, every_s=0.5,
                                             during=HEADER_TIMEOUT_S + SLACK_S)
    assert len(closed) == 5

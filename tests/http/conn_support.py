"""Raw-socket helpers for the connection-hardening tests (asgi_server.py).

Everything here talks to 127.0.0.1 only, and every wait is bounded.
"""

from __future__ import annotations

import http.client
import re
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from http_support import START_TIMEOUT_S, server_env, stop_process

UI_BANNER = re.compile(r"console at (http://127\.0\.0\.1:\d+)/")


def address_of(base: str) -> tuple[str, int]:
    parts = urlsplit(base)
    assert parts.hostname == "127.0.0.1", base
    assert parts.port is not None
    return parts.hostname, parts.port


def request_bytes(path: str = "/health", method: str = "GET", body: bytes = b"",
                  headers: dict[str, str] | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(body)}"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def read_status(sock: socket.socket, timeout: float = 5.0) -> int | None:
    """The status of the next response on ``sock``; None if the server closed or reset it.

    Reads the headers and a ``Content-Length`` body, so the connection can carry
    another request afterwards.
    """
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        match = re.search(rb"(?im)^content-length:\s*(\d+)", head)
        length = int(match.group(1)) if match else 0
        while len(rest) < length:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            rest += chunk
    except (ConnectionResetError, BrokenPipeError):
        return None
    return int(head.split(b" ", 2)[1])


def closed_by_peer(sock: socket.socket) -> bool:
    """True when the server has closed ``sock`` (EOF or reset); never blocks."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(4096) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except BlockingIOError:
        return False


def trickle(sock: socket.socket, byte: bytes) -> bool:
    """Send one byte; False when the server has already dropped the connection."""
    try:
        sock.send(byte)
    except (BrokenPipeError, ConnectionResetError):
        return False
    return True


def keepalive_latencies(base: str, path: str, count: int) -> list[float]:
    """Seconds per request for ``count`` GETs on one keep-alive connection (http.client)."""
    host, port = address_of(base)
    conn = http.client.HTTPConnection(host, port, timeout=10)
    times = []
    try:
        for _ in range(count):
            start = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            times.append(time.perf_counter() - start)
            assert response.status < 500, response.status
            assert not response.will_close, "the server closed a keep-alive connection"
    finally:
        conn.close()
    return times


@contextmanager
def sockets(addr: tuple[str, int], count: int) -> Iterator[list[socket.socket]]:
    """``count`` connected sockets, all closed at the end."""
    opened: list[socket.socket] = []
    try:
        for _ in range(count):
            opened.append(socket.create_connection(addr, timeout=5))
        yield opened
    finally:
        for sock in opened:
            sock.close()


@dataclass
class UiProc:
    """A running `brainkeep ui` subprocess; ``base`` is ``http://127.0.0.1:PORT``."""

    proc: subprocess.Popen[bytes]
    base: str
    stderr_path: Path

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = 15.0) -> int:
        return stop_process(self.proc, timeout)


def start_ui(home: Path) -> UiProc:
    """`brainkeep ui --port 0 --no-browser` and wait for its banner."""
    err_path = home / f"ui-{time.monotonic_ns()}.stderr"
    with err_path.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "brainkeep", "ui", "--port", "0", "--no-browser"],
            env=server_env(home), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=err,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        match = UI_BANNER.search(err_path.read_text(encoding="utf-8", errors="replace"))
        if match:
            return UiProc(proc, match.group(1), err_path)
        if proc.poll() is not None:
            raise RuntimeError(f"ui exited early: {err_path.read_text()}")
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    raise RuntimeError(f"ui did not start: {err_path.read_text()}")

"""Fixtures for provider tests: a scripted HTTP server and a dead port."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from .scripted_http import ScriptedServer, start


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """A scripted JSON server on 127.0.0.1, stopped after the test."""
    state = ScriptedServer()
    httpd, thread = start(state)
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"

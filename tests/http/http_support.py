"""Helpers for the HTTP tests: a real `brainkeep serve --http` process and the official client.

Kept out of conftest so test modules can import the plain functions.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from brainkeep.brain import open_brain
from brainkeep.config import load_settings, write_values
from brainkeep.core.clock import Clock
from brainkeep.core.context import LOCAL
from brainkeep.core.tokens import TokenService
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from tests.brain_engines import database_values

BANNER = re.compile(r"MCP over HTTP at (http://\S+/mcp)")
START_TIMEOUT_S = 30.0
# Test servers are generous unless a test is about the limits.
OPEN_LIMITS = {
    "http.rate_per_minute": 1_000_000,
    "http.ip_rate_per_minute": 1_000_000,
    "http.max_body_bytes": 65_536,
}


SENTINEL = "zq-private-sentinel-7731"


@dataclass(frozen=True)
class ServedBrain:
    """A served brain: its home and the secrets of its tokens, by role."""

    home: Path
    tokens: dict[str, str]


def make_home(path: Path, config: dict[str, Any] | None = None, engine: str = "sqlite") -> Path:
    """A fresh brain home on ``engine`` with ``config`` written to its config file."""
    path.mkdir(parents=True, exist_ok=True)
    settings = load_settings(path, env={})
    write_values(settings, {**database_values(engine), **(config or {})})
    open_brain(load_settings(path, env={})).close()  # creates and migrates the database
    return path


def create_token(
    home: Path, name: str, scopes: str, *, expires: str | None = None, clock: Clock | None = None
) -> str:
    """Create a token in ``home`` and return its secret."""
    brain = open_brain(load_settings(home, env={}))
    try:
        return TokenService(brain.store, clock or brain.clock).create(
            name, scopes, expires=expires
        ).secret
    finally:
        brain.close()


def revoke_token(home: Path, name: str) -> None:
    brain = open_brain(load_settings(home, env={}))
    try:
        TokenService(brain.store, brain.clock).revoke(name)
    finally:
        brain.close()


def local_call(home: Path, name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Call an operation as the trusted local CLI would (in-process dispatcher)."""
    brain = open_brain(load_settings(home, env={}))
    try:
        outcome = Dispatcher(build_catalog(), brain).call(name, params, LOCAL)
        assert not outcome.is_error, outcome.payload
        return outcome.payload
    finally:
        brain.close()


@dataclass
class ServerProc:
    """A running `brainkeep serve --http` subprocess."""

    proc: subprocess.Popen[bytes]
    url: str
    stderr_path: Path

    @property
    def base(self) -> str:
        return self.url.rsplit("/mcp", 1)[0]

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = 15.0) -> int:
        return stop_process(self.proc, timeout)


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 15.0) -> int:
    """SIGTERM, then wait for the graceful exit (killed after ``timeout``); the exit code."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return int(proc.returncode)


class Stoppable(Protocol):
    def stop(self, timeout: float = 15.0) -> int: ...
    def stderr(self) -> str: ...


P = TypeVar("P", bound=Stoppable)


@contextmanager
def stopped_cleanly(proc: P, name: str) -> Iterator[P]:
    """Yield ``proc``; at the end it must exit 0 on SIGTERM with no traceback."""
    try:
        yield proc
    finally:
        code = proc.stop()
        assert code == 0, f"{name} exit {code} on SIGTERM:\n{proc.stderr()}"
        assert "Traceback" not in proc.stderr(), proc.stderr()
        # A library warning on every start reads as a misconfiguration to an
        # operator (the SDK's validate_token_resource one contradicted docs/http.md).
        assert "DeprecationWarning" not in proc.stderr(), proc.stderr()


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "brainkeep", "serve", "--http", *args]


def server_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["BRAINKEEP_HOME"] = str(home)
    return env


def start_server(home: Path, *args: str) -> ServerProc:
    """Start a server on a free port (``--port 0``) and wait for its banner."""
    err_path = home / f"server-{time.monotonic_ns()}.stderr"
    with err_path.open("wb") as err:
        proc = subprocess.Popen(
            serve_command("--port", "0", *args),
            env=server_env(home),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        match = BANNER.search(err_path.read_text(encoding="utf-8", errors="replace"))
        if match:
            server = ServerProc(proc, match.group(1), err_path)
            _wait_healthy(server, deadline)
            return server
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early: {err_path.read_text()}")
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"server did not start: {err_path.read_text()}")


def _wait_healthy(server: ServerProc, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            if httpx2.get(server.base + "/health", timeout=2).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"server never became healthy: {server.stderr()}")


@asynccontextmanager
async def mcp_session(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    """An initialized official-SDK client session over Streamable HTTP."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def call(session: ClientSession, name: str, args: dict[str, Any]) -> tuple[bool, Any]:
    """(is_error, parsed JSON payload) of one tool call."""
    result = await session.call_tool(name, args)
    text = "\n".join(b.text for b in result.content if getattr(b, "type", "") == "text")
    return bool(result.is_error), json.loads(text)


def run(fn: Callable[..., Any], *args: Any) -> Any:
    """Run an async test body to completion."""
    return anyio.run(fn, *args)


def past_clock(days: float) -> Clock:
    """A clock ``days`` in the past (to mint already-expired tokens)."""
    from datetime import timedelta

    return Clock(lambda: datetime.now(UTC) - timedelta(days=days))

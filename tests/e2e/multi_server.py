"""Several real `brainkeep serve` processes on one PostgreSQL database, and their clients.

Used by ``test_multi_server.py``. Each server gets its own brain home (a copy
of one config naming the database), as replicas on separate hosts would; all
bind 127.0.0.1 on a free port. HTTP clients are the official MCP SDK client
(``tests/http/http_support.py``); gRPC clients are the generated stubs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import grpc
import httpx2

from brainkeep.brain import open_brain
from brainkeep.config import load_settings, write_values
from brainkeep.core.tokens import TokenService
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc
from tests.http.http_support import OPEN_LIMITS, call, mcp_session
from tests.pg_server import fresh_database

HTTP_BANNER = re.compile(r"MCP over HTTP at (http://127\.0\.0\.1:\d+/mcp)")
GRPC_BANNER = re.compile(r"gRPC listening on (127\.0\.0\.1:\d+)")
START_TIMEOUT_S = 60.0  # five interpreters importing grpc + mcp at once on 2 cores
CALL_TIMEOUT_S = 20.0
GRPC_SECRET = "multi-server-grpc-secret"
GROUP_SIZE = 50  # writes sharing one marker word: one recall (limit 100) reads them all
RECALL_LIMIT = 100


@dataclass
class Server:
    """One `brainkeep serve` subprocess."""

    kind: str  # "http" or "grpc"
    index: int
    proc: subprocess.Popen[bytes]
    stderr_path: Path
    address: str = ""  # the MCP URL, or host:port for gRPC

    @property
    def name(self) -> str:
        return f"{self.kind}{self.index}"

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def kill9(self) -> None:
        """SIGKILL: no shutdown hook, no pool close, connections cut mid-statement."""
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@dataclass
class Cluster:
    """N HTTP and M gRPC servers in front of one fresh database."""

    url: str
    home: Path  # a brain home on the same database, for in-process checks and the CLI
    http_token: str
    http: list[Server] = field(default_factory=list)
    grpc: list[Server] = field(default_factory=list)

    @property
    def servers(self) -> list[Server]:
        return [*self.http, *self.grpc]


def _make_home(home: Path, url: str) -> None:
    home.mkdir(parents=True)
    write_values(load_settings(home, env={}), {"database.url": url, **OPEN_LIMITS})


def _spawn(kind: str, index: int, home: Path) -> Server:
    args = ["--http", "--port", "0"] if kind == "http" else ["--grpc", "--grpc-port", "0"]
    env = {**os.environ, "BRAINKEEP_HOME": str(home), "BRAINKEEP_GRPC_TOKEN": GRPC_SECRET}
    env.pop("BRAINKEEP_DATABASE_URL", None)  # each home's config names the database
    err_path = home / "server.stderr"
    with err_path.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "brainkeep", "serve", "--bind", "127.0.0.1", *args],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
        )
    return Server(kind, index, proc, err_path)


def _wait_ready(server: Server, deadline: float) -> None:
    banner = HTTP_BANNER if server.kind == "http" else GRPC_BANNER
    while time.monotonic() < deadline:
        match = banner.search(server.stderr())
        if match:
            server.address = match.group(1)
            return
        if server.proc.poll() is not None:
            raise RuntimeError(f"{server.name} exited early:\n{server.stderr()}")
        time.sleep(0.05)
    raise RuntimeError(f"{server.name} did not start:\n{server.stderr()}")


@contextmanager
def running_cluster(root: Path, *, http: int, grpc_servers: int) -> Iterator[Cluster]:
    """Start the servers (all at once), yield them, stop whatever is still running."""
    url = fresh_database()
    home = root / "admin"
    _make_home(home, url)
    brain = open_brain(load_settings(home, env={}))  # applies the migrations once
    try:
        secret = TokenService(brain.store, brain.clock).create("multi", "read,write").secret
    finally:
        brain.close()
    cluster = Cluster(url, home, secret)
    try:
        for kind, count, into in (("http", http, cluster.http),
                                  ("grpc", grpc_servers, cluster.grpc)):
            for index in range(count):
                server_home = root / f"{kind}{index}"
                server_home.mkdir()
                shutil.copy2(home / "config.json", server_home / "config.json")
                into.append(_spawn(kind, index, server_home))
        deadline = time.monotonic() + START_TIMEOUT_S
        for server in cluster.servers:
            _wait_ready(server, deadline)
        for server in cluster.http:
            _wait_healthy(server, deadline)
        yield cluster
    finally:
        stopping = [s for s in cluster.servers if s.proc.poll() is None]
        for server in stopping:  # all at once: each may take its grace period
            server.proc.terminate()
        for server in stopping:
            server.stop()


def _wait_healthy(server: Server, deadline: float) -> None:
    base = server.address.rsplit("/mcp", 1)[0]
    while time.monotonic() < deadline:
        try:
            if httpx2.get(base + "/health", timeout=2).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{server.name} never became healthy:\n{server.stderr()}")


# -- writes ------------------------------------------------------------------


def marker(client: int, n: int) -> str:
    """The word shared by one group of a client's writes (one token to every tokenizer)."""
    return f"grp{client}x{n // GROUP_SIZE}"


def write_text(client: int, n: int) -> str:
    return f"client {client} write {n} {marker(client, n)} lands on every replica"


@dataclass
class Tally:
    """What one client saw: the texts the server acknowledged, and the errors."""

    client: int
    server: str
    acked: list[int] = field(default_factory=list)  # write numbers, in ack order
    errors: list[str] = field(default_factory=list)

    @property
    def texts(self) -> set[str]:
        return {write_text(self.client, n) for n in self.acked}

    @property
    def markers(self) -> set[str]:
        return {marker(self.client, n) for n in self.acked}


async def http_writer(url: str, token: str, tally: Tally, writes: range,
                      stop_on_error: bool = True) -> None:
    """Remember each write through the official MCP client; count acks and errors."""
    try:
        async with mcp_session(url, token) as session:
            for n in writes:
                text = write_text(tally.client, n)
                with anyio.fail_after(CALL_TIMEOUT_S):
                    result = await session.call_tool(
                        "remember", {"fact": text, "provenance": f"e2e/{tally.server}"},
                        read_timeout_seconds=CALL_TIMEOUT_S,
                    )
                if result.is_error:
                    tally.errors.append(f"{n}: {result.content}")
                    if stop_on_error:
                        return
                else:
                    tally.acked.append(n)
    except Exception as exc:  # noqa: BLE001 - a dead server surfaces as any transport error
        tally.errors.append(describe(exc))


def describe(exc: BaseException) -> str:
    """The leaf errors of a (nested) exception group, e.g. `ConnectError: …`."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


def grpc_writer(address: str, tally: Tally, writes: range) -> None:
    """Remember each write through the generated stub (public: readable over MCP too)."""
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.MnemoServiceStub(channel)
        for n in writes:
            text = write_text(tally.client, n)
            try:
                stub.Remember(
                    pb.RememberRequest(content=text, scope="public",
                                       agent_id=f"writer-{tally.client}"),
                    metadata=auth(), timeout=CALL_TIMEOUT_S,
                )
            except grpc.RpcError as exc:
                tally.errors.append(f"{n}: {exc.code()}")  # type: ignore[attr-defined]
                return
            tally.acked.append(n)


def auth() -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {GRPC_SECRET}"),)


# -- reads -------------------------------------------------------------------


async def http_read_markers(url: str, token: str, markers: set[str]) -> set[str]:
    """Every fact text recall returns for each marker word, through one HTTP server."""
    seen: set[str] = set()
    async with mcp_session(url, token) as session:
        for word in sorted(markers):
            is_error, payload = await call(session, "recall",
                                           {"query": word, "limit": RECALL_LIMIT})
            assert not is_error, payload
            seen.update(f["fact"] for f in payload["facts"])
    return seen


def grpc_read_markers(address: str, markers: set[str]) -> set[str]:
    """Every memory text Recall returns for each marker word, through one gRPC server."""
    seen: set[str] = set()
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.MnemoServiceStub(channel)
        for word in sorted(markers):
            reply = stub.Recall(
                pb.RecallRequest(query=word, limit=RECALL_LIMIT, strategy="lexical",
                                 agent_id="reader"),
                metadata=auth(), timeout=CALL_TIMEOUT_S,
            )
            seen.update(m.content for m in reply.memories)
    return seen


def grpc_verify(address: str) -> Any:
    with grpc.insecure_channel(address) as channel:
        return pb_grpc.MnemoServiceStub(channel).Verify(
            pb.VerifyRequest(), metadata=auth(), timeout=120)


def brainkeep_verify(home: Path) -> subprocess.CompletedProcess[str]:
    """`brainkeep verify --full`: the whole log, not only what came after the last verify."""
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    env.pop("BRAINKEEP_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "brainkeep", "verify", "--full", "--json"],
                          env=env, capture_output=True, text=True, timeout=120)

"""MCP over a real stdio `brainkeep serve` subprocess: the same fuzz, a smaller run.

Two fuzzers share one property (every request gets an answer in time, never
an internal error, and the server keeps serving):

* the official MCP client calls every tool with schema-generated arguments
  (values the client itself cannot encode, such as lone surrogates, are left
  to the second fuzzer);
* raw lines written to the server's stdin: lone-surrogate escapes, invalid
  UTF-8, 10,000-deep nesting, non-JSON, NaN, wrong JSON-RPC shapes. A line
  from which an id can be read must get a reply carrying that id; after any
  line the server must still answer a ping.

The brain verifies after each run.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pydantic_core
import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import assume, given
from hypothesis import strategies as st
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.verify import verify_brain
from brainkeep.ops.registry import build_catalog
from tests.fuzz.hostile import DEPTH, PAGE_CONTENTS, arguments_for
from tests.fuzz.support import CALL_TIMEOUT_S, MCP_ERROR_CODES, Hang, fuzz_settings, short

CATALOG = build_catalog()
# JSON-RPC errors a malformed request may get; -32603 (internal error) is not one.
RPC_ERRORS = frozenset({-32700, -32600, -32601, -32602})


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "brain"
    subprocess.run([sys.executable, "-m", "brainkeep", "--home", str(home), "init"],
                   check=True, capture_output=True, timeout=60)
    return home


def assert_home_verifies(home: Path) -> None:
    brain = open_brain(load_settings(home, env={}))
    try:
        report = verify_brain(brain.store)
        assert report.valid, f"verify failed: {report.first_broken}"
    finally:
        brain.close()


def check_tool_payload(where: str, payload: dict[str, Any], is_error: bool) -> None:
    if is_error:
        assert payload.get("error") in MCP_ERROR_CODES, f"{where}: {short(payload)}"
    text = json.dumps(payload)
    assert "Traceback" not in text and 'File "/' not in text, f"{where}: {short(payload)}"


# -- the official client ---------------------------------------------------------------


@asynccontextmanager
async def session(home: Path) -> AsyncIterator[ClientSession]:
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "brainkeep", "serve"],
                                   env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        with anyio.fail_after(60):
            await client.initialize()
        yield client


async def call_tool(client: ClientSession, name: str, args: dict[str, Any]) -> Any:
    try:
        with anyio.fail_after(CALL_TIMEOUT_S):
            return await client.call_tool(name, args)
    except TimeoutError:
        raise Hang(f"{name}({short(args)}): no answer within {CALL_TIMEOUT_S:.0f} s") from None


def client_can_send(args: dict[str, Any]) -> bool:
    """Whether the client can serialize ``args`` (it refuses lone surrogates and deep nests)."""
    try:
        pydantic_core.to_json(args)
    except (pydantic_core.PydanticSerializationError, ValueError, RecursionError):
        return False
    return True


@st.composite
def tool_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    op = draw(st.sampled_from(CATALOG.operations))
    args = draw(arguments_for(op.tool_definition()["inputSchema"]))
    return op.name, args


def test_official_client_over_stdio(home: Path) -> None:
    with start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(session(home)) as client:
        seeded = portal.call(call_tool, client, "put_page",
                             {"slug": "people/alice-example", "content": PAGE_CONTENTS[0]})
        assert not seeded.is_error
        sent: list[str] = []

        @fuzz_settings(40)
        @given(call=tool_calls())
        def fuzz(call: tuple[str, dict[str, Any]]) -> None:
            name, args = call
            assume(client_can_send(args))
            sent.append(name)
            where = f"{name}({short(args)})"
            try:
                result = portal.call(call_tool, client, name, args)
            except MCPError as exc:  # a JSON-RPC error: fine unless it is "internal"
                assert exc.error.code in RPC_ERRORS, f"{where}: {exc.error}"
                return
            assert len(result.content) == 1 and result.content[0].type == "text", where
            check_tool_payload(where, json.loads(result.content[0].text), bool(result.is_error))

        fuzz()
        assert len(sent) >= 10, f"only {len(sent)} generated calls were sendable"
    assert_home_verifies(home)


# -- raw lines -------------------------------------------------------------------------


class RawServer:
    """`brainkeep serve` driven line by line; replies are read on a thread."""

    def __init__(self, home: Path) -> None:
        env = {**os.environ, "BRAINKEEP_HOME": str(home)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "brainkeep", "serve"], env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self.replies: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._next_id = 1000
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                self.replies.put(json.loads(line))
            except ValueError:
                self.replies.put({"unparseable_reply": line[:200].decode("utf-8", "replace")})
        self.replies.put(None)  # stdout closed: the server is gone

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.rstrip(b"\n") + b"\n")
        self.proc.stdin.flush()

    def wait_for(self, request_id: Any, what: str, timeout: float = CALL_TIMEOUT_S) -> Any:
        """The reply carrying ``request_id`` (replies with other ids, e.g. null, are skipped)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise Hang(f"{what}: no reply with id {request_id!r} within {timeout:.0f} s")
            try:
                reply = self.replies.get(timeout=left)
            except queue.Empty:
                continue
            assert reply is not None, f"{what}: the server exited (rc {self.proc.poll()})"
            assert "unparseable_reply" not in reply, f"{what}: non-JSON on stdout: {reply}"
            if reply.get("id") == request_id:
                return reply

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode())
        return self.wait_for(self._next_id, method)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("`brainkeep serve` did not exit after stdin closed") from None
        finally:
            if self.proc.stdout is not None:
                self.proc.stdout.close()


@pytest.fixture
def raw(home: Path) -> Iterator[RawServer]:
    server = RawServer(home)
    try:
        reply = server.request("initialize", {
            "protocolVersion": mcp_types.LATEST_PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "0"},
        })
        assert "result" in reply, reply
        server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        yield server
    finally:
        server.close()


def tool_line(request_id: int, name: str, arguments_json: str) -> bytes:
    return (f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
            f'"params":{{"name":"{name}","arguments":{arguments_json}}}}}').encode()


# Lines from which an id can be read: each must get a reply with that id.
ID_LINES: tuple[tuple[int, bytes], ...] = (
    (101, tool_line(101, "recall", '{"query":"\\ud800"}')),
    (102, tool_line(102, "remember", '{"fact":"x\\udfffy","provenance":"fuzz"}')),
    (103, tool_line(103, "recall", '{"query":' + "[" * DEPTH + "]" * DEPTH + "}")),
    (105, b'{"jsonrpc":"2.0","id":105,"method":"tools/call","params":{"name":"put_page",'
          b'"arguments":{"slug":"fuzz/utf8","content":"a\xff\xfe b"}}}'),
    (106, tool_line(106, "recall", '{"budget_tokens":NaN}')),
    (107, tool_line(107, "recall", '{"limit":1e400}')),
    (108, tool_line(108, "forget", '{"id":' + str(10**30) + "}")),
    (109, b'{"jsonrpc":"2.0","id":109,"method":"tools/call","params":' + b"[" * DEPTH
          + b"]" * DEPTH + b"}"),
    (110, b'{"jsonrpc":"2.0","id":110,"method":"no/such/method"}'),
    (111, b'{"jsonrpc":"2.0","id":111,"method":"tools/call","params":"nope"}'),
    (112, b'{"jsonrpc":"2.0","id":112,"method":"tools/call"'),  # truncated
    (113, b'{"jsonrpc":"1.0","id":113,"method":"tools/list"}'),
    (114, tool_line(114, "put_page", '{"slug":"fuzz/nul","content":"a\\u0000b"}')),
    (115, tool_line(115, "no_such_tool", "{}")),
    (116, tool_line(116, "recall", '{"query":"' + "x" * 100_000 + '"}')),
)
# Lines with no readable id: a reply is optional, the server must keep serving.
OTHER_LINES: tuple[bytes, ...] = (
    b"not json at all",
    b"\xff\xfe\xfd",
    b"[" * DEPTH + b"]" * DEPTH,
    b"{" * DEPTH,
    b"NaN",
    b"[]",
    b'"\\ud800"',
    b'{"jsonrpc":"2.0","method":"notifications/initialized","params":"\\ud800"}',
    b'{"jsonrpc":"2.0","result":{},"id":99999}',
    b"\x00\x00\x00",
)


def assert_answer(request_id: int, reply: dict[str, Any]) -> None:
    where = f"line id {request_id}"
    if "error" in reply:
        assert reply["error"].get("code") in RPC_ERRORS, f"{where}: {reply}"
        return
    assert "result" in reply, f"{where}: {reply}"
    result = reply["result"]
    content = result.get("content") or []
    if content and content[0].get("type") == "text":
        payload = json.loads(content[0]["text"])
        check_tool_payload(where, payload, bool(result.get("isError")))


def test_raw_hostile_lines_always_get_an_answer(raw: RawServer, home: Path) -> None:
    for request_id, line in ID_LINES:
        raw.send(line)
        assert_answer(request_id, raw.wait_for(request_id, f"line {short(line, 120)}"))
    for line in OTHER_LINES:
        raw.send(line)
        assert "result" in raw.request("ping"), f"no pong after {short(line, 120)}"
    # Invalid UTF-8 is refused (as HTTP refuses it), never stored with U+FFFD.
    stored = raw.request("tools/call", {"name": "get_page", "arguments": {"slug": "fuzz/utf8"}})
    assert stored["result"]["isError"], f"invalid UTF-8 content was stored: {stored}"
    raw.close()
    assert_home_verifies(home)


@fuzz_settings(25)
@given(line=st.one_of(
    st.binary(max_size=200),
    st.builds(lambda body: b'{"jsonrpc":"2.0","id":7,' + body, st.binary(max_size=80)),
    st.builds(lambda junk: json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                       "params": junk}).encode(),
              st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                           max_leaves=10)),
))
def test_random_lines_never_stop_the_server(line: bytes, raw_server: RawServer) -> None:
    raw_server.send(line.replace(b"\n", b" ").replace(b"\r", b" "))
    pong = raw_server.request("ping")
    assert "result" in pong, f"no pong after {short(line, 120)}: {pong}"


@pytest.fixture(scope="module")
def raw_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    home = tmp_path_factory.mktemp("fuzz-stdio-raw") / "brain"
    subprocess.run([sys.executable, "-m", "brainkeep", "--home", str(home), "init"],
                   check=True, capture_output=True, timeout=60)
    server = RawServer(home)
    try:
        assert "result" in server.request("initialize", {
            "protocolVersion": mcp_types.LATEST_PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "0"},
        })
        server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        yield server
    finally:
        server.close()
    assert_home_verifies(home)

"""MCP over stdio through the official SDK, for a connection the lean session hands over.

``mcp/stdio.py`` answers the initialize-handshake era itself (no SDK import
on the start-up path); a client whose first request is anything else (the
2026 stateless era, or a request before ``initialize``) gets this: the SDK's
``Server`` on anyio, fed the lines already read and then the rest of stdin.
Every malformed line still gets a JSON-RPC error reply (``classify``), and
shutdown is the same: stop reading, let the requests already read finish for
``grace`` seconds, then close.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCResponse

from brainkeep.core.context import Caller
from brainkeep.mcp.server import build_server
from brainkeep.mcp.stdio_wire import Accepted, classify
from brainkeep.ops.dispatch import Dispatcher

log = logging.getLogger("brainkeep.stdio")

_POLL_S = 0.1


def serve_with_sdk(dispatcher: Dispatcher, caller: Caller, lines: Iterator[bytes],
                   write: Callable[[bytes], None], stop: threading.Event, grace: float) -> None:
    """Serve the rest of the connection (``lines`` starts with the opening request)."""
    server = build_server(dispatcher, lambda _ctx: caller)
    anyio.run(_serve, server, lines, write, stop, grace)


class _Pending:
    """Ids of requests handed to the SDK and not yet answered (what a drain waits for)."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._empty = anyio.Event()
        self._empty.set()

    def add(self, request_id: str | int) -> None:
        self._ids.add(repr(request_id))
        if self._empty.is_set():
            self._empty = anyio.Event()

    def answered(self, message: SessionMessage) -> None:
        if isinstance(message.message, JSONRPCResponse | JSONRPCError):
            self._ids.discard(repr(message.message.id))
            if not self._ids:
                self._empty.set()

    async def drained(self) -> None:
        await self._empty.wait()


def _forward_lines(lines: Iterator[bytes], send: ObjectSendStream[bytes | None],
                   token: anyio.lowlevel.EventLoopToken) -> None:
    """Daemon thread: forward the rest of stdin's lines into the loop; None marks EOF."""
    try:
        for line in lines:
            anyio.from_thread.run(send.send, line, token=token)
        anyio.from_thread.run(send.send, None, token=token)
    except (RuntimeError, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        return  # the loop is gone (shutdown) or stdin broke: nothing more to read


async def _serve(server: Server[Any], lines_from: Iterator[bytes],
                 write: Callable[[bytes], None], stop: threading.Event, grace: float) -> None:
    to_server, server_in = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    server_out, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    lines_in, lines = anyio.create_memory_object_stream[bytes | None](16)
    pending = _Pending()
    lock = anyio.Lock()
    stopping = anyio.Event()

    async def emit(data: bytes) -> None:
        async with lock:
            await anyio.to_thread.run_sync(write, data)

    async def writer(stream: ObjectReceiveStream[SessionMessage]) -> None:
        async with stream:
            async for message in stream:
                body = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await emit(body.encode("utf-8") + b"\n")
                pending.answered(message)

    async def pump() -> None:
        async with to_server, lines:
            while not stopping.is_set():
                with anyio.CancelScope() as scope:
                    reading[:] = [scope]
                    line = await lines.receive()
                if scope.cancelled_caught or line is None:
                    break
                verdict = classify(line)
                if isinstance(verdict, Accepted):
                    if verdict.request_id is not None:
                        pending.add(verdict.request_id)
                    await to_server.send(verdict.message)
                elif verdict is not None:
                    log.warning("stdio: refused a malformed line: %s", verdict.reason)
                    if verdict.reply is not None:
                        await emit(verdict.reply)
            # Requests already read finish (bounded); then EOF lets the SDK wind down.
            with anyio.move_on_after(grace):
                await pending.drained()

    def finish() -> None:
        stopping.set()
        for scope in reading:
            scope.cancel()

    async def watch() -> None:
        # Polling (not a signal receiver) also sees a signal that arrived
        # before the loop started, and one delivered to another thread.
        while not stop.is_set() and not stopping.is_set():
            await anyio.sleep(_POLL_S)
        finish()

    reading: list[anyio.CancelScope] = []
    token = anyio.lowlevel.current_token()
    threading.Thread(target=_forward_lines, args=(lines_from, lines_in, token), daemon=True,
                     name="brainkeep-stdin").start()
    async with anyio.create_task_group() as tg:
        tg.start_soon(writer, from_server)
        tg.start_soon(pump)
        tg.start_soon(watch)
        await server.run(server_in, server_out, server.create_initialization_options())
        finish()
        # The writer ends when the SDK closes its stream; never wait on it for long.
        tg.cancel_scope.deadline = anyio.current_time() + 1.0

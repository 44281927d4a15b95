"""MCP over stdio: stdout carries the protocol, logs go to stderr.

We run our own line transport (``mcp/stdio_wire.py`` classifies lines)
instead of the SDK's ``stdio_server``, for two reasons the SDK cannot meet:
every malformed request line gets a JSON-RPC error reply instead of silence,
and shutdown is deterministic. On SIGTERM/SIGINT (or stdin EOF) we stop
reading, let the requests already read finish for ``grace`` seconds, then
close; stdin is read by a daemon thread, so a read blocked on an idle pipe
never keeps the process alive.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCResponse

from brainkeep.brain import Brain
from brainkeep.core.context import STDIO, Caller
from brainkeep.mcp.server import build_server
from brainkeep.mcp.stdio_wire import MAX_LINE_BYTES, Accepted, classify
from brainkeep.ops.registry import open_dispatcher

log = logging.getLogger("brainkeep.stdio")

SHUTDOWN_GRACE_S = 5.0
_POLL_S = 0.1


def run_stdio_server(
    brain: Brain,
    *,
    surface: str,
    caller: Caller = STDIO,
    stop: threading.Event | None = None,
    grace: float = SHUTDOWN_GRACE_S,
) -> None:
    """Serve MCP on stdin/stdout until the client closes the stream or ``stop`` is set.

    stdio callers are remote (world-only) per the trust model: whoever spawned
    us is an agent host, not the trusted local CLI. ``caller`` may bind that
    one client to an org and an agent id (`serve --org/--agent`); it stays remote.
    ``stop`` is set by the SIGTERM/SIGINT handler of `brainkeep serve`.
    """
    if not caller.remote:
        raise ValueError("a stdio caller is never trusted")
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    dispatcher = open_dispatcher(brain, surface)
    server = build_server(dispatcher, lambda _ctx: caller)
    stop = stop or threading.Event()
    with _claim_stdout() as wire_out:
        print(f"brainkeep: MCP over stdio, surface={surface}", file=sys.stderr, flush=True)
        anyio.run(_serve, server, os.dup(0), wire_out, stop, grace)


class _claim_stdout:  # noqa: N801 — a context manager used like a function
    """Give the protocol a private copy of fd 1 and point fd 1 at stderr meanwhile.

    A stray ``print`` from any library then lands on stderr instead of
    tearing a JSON-RPC frame (the SDK's stdio transport does the same).
    """

    def __enter__(self) -> Callable[[bytes], None]:
        sys.stdout.flush()
        self._private = os.dup(1)
        os.dup2(2, 1)
        fd = self._private

        def write(data: bytes) -> None:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]

        return write

    def __exit__(self, *_exc: object) -> None:
        os.dup2(self._private, 1)
        os.close(self._private)


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


def _read_lines(fd: int, send: ObjectSendStream[bytes | None],
                token: anyio.lowlevel.EventLoopToken) -> None:
    """Daemon thread: forward raw stdin lines into the loop; None marks EOF.

    Plain ``os.read`` on a private descriptor, not ``sys.stdin.buffer``: a
    daemon thread blocked inside a BufferedReader holds its lock, and the
    interpreter aborts at exit trying to take it.
    """
    buffer = b""
    skipping = False  # inside an oversized line, already reported
    try:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                if buffer and not skipping:
                    anyio.from_thread.run(send.send, buffer, token=token)
                anyio.from_thread.run(send.send, None, token=token)
                return
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if not skipping:
                    anyio.from_thread.run(send.send, line, token=token)
                skipping = False
            if len(buffer) > MAX_LINE_BYTES and not skipping:
                # classify() answers the oversized line; its remainder is dropped.
                anyio.from_thread.run(send.send, buffer, token=token)
                buffer, skipping = b"", True
            elif skipping:
                buffer = b""
    except (RuntimeError, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        return  # the loop is gone (shutdown) or stdin broke: nothing more to read
    finally:
        os.close(fd)


async def _serve(server: Server, stdin_fd: int, write: Callable[[bytes], None],
                 stop: threading.Event, grace: float) -> None:
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
    threading.Thread(target=_read_lines, args=(stdin_fd, lines_in, token), daemon=True,
                     name="brainkeep-stdin").start()
    async with anyio.create_task_group() as tg:
        tg.start_soon(writer, from_server)
        tg.start_soon(pump)
        tg.start_soon(watch)
        await server.run(server_in, server_out, server.create_initialization_options())
        finish()
        # The writer ends when the SDK closes its stream; never wait on it for long.
        tg.cancel_scope.deadline = anyio.current_time() + 1.0

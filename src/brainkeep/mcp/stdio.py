"""MCP over stdio: stdout carries the protocol, logs go to stderr.

A lean session of our own answers the initialize-handshake era (what every
agent host speaks): ``initialize``, ``ping``, ``tools/list`` and
``tools/call``, in plain JSON with the shapes of ``mcp/shapes.py``. It
exists for start-up time and per-call CPU: the SDK's import alone costs
more CPU than the 1 s an agent host should wait for ``tools/list``, and its
per-message models, middleware and thread hops cost more per ``remember``
than the durable commit. Nothing on the way to the first ``tools/list``
imports the SDK, numpy, an embedding runtime or grpc: the catalog gives the
tool list, and the brain opens in a background thread once ``tools/list`` is
answered (or when the first call needs it). A client whose first request is
anything but ``initialize`` (the 2026 stateless era) is handed to the SDK
(``mcp/stdio_sdk.py``) with the lines read so far.

Every malformed request line gets a JSON-RPC error reply (``mcp/stdio_wire``),
and shutdown is deterministic: on SIGTERM/SIGINT (or stdin EOF) we stop
reading, let the calls already read finish for ``grace`` seconds, then close.
stdin is read by a daemon thread, so a read blocked on an idle pipe never
keeps the process alive; calls run on daemon worker threads, so one slow
call does not stall the others on this connection.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brainkeep.core.context import STDIO, Caller
from brainkeep.mcp.shapes import call_tool_result, initialize_result
from brainkeep.mcp.stdio_wire import MAX_LINE_BYTES, Message, Parsed, check_shape, parse
from brainkeep.mcp.stdio_workers import BrainSlot, Workers
from brainkeep.ops.registry import build_catalog

if TYPE_CHECKING:
    from brainkeep.brain import Brain

log = logging.getLogger("brainkeep.stdio")

SHUTDOWN_GRACE_S = 5.0
_POLL_S = 0.1
# Diagnostics: when set, the modules loaded at the moment the first
# tools/list is answered are written to this file, one per line (the
# start-up test and bench/cold_start.py read it).
STARTUP_MODULES_ENV = "BRAINKEEP_STARTUP_MODULES"
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601


def run_stdio_server(
    open_brain: Callable[[], Brain],
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
    ``open_brain`` is called once, off the start-up path; the caller owns
    (and closes) what it returns. ``stop`` is set by the SIGTERM/SIGINT
    handler of `brainkeep serve`.
    """
    if not caller.remote:
        raise ValueError("a stdio caller is never trusted")
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    stop = stop or threading.Event()
    slot = BrainSlot(open_brain, surface)
    with _claim_stdout() as write:
        print(f"brainkeep: MCP over stdio, surface={surface}", file=sys.stderr, flush=True)
        session = _Session(slot, surface, caller, write)
        lines = read_lines(os.dup(0))
        reader = threading.Thread(target=session.read, args=(lines,), daemon=True,
                                  name="brainkeep-stdin")
        reader.start()
        while not stop.wait(_POLL_S) and not session.ended.is_set():
            pass
        session.closing.set()
        if session.handoff is not None:
            from brainkeep.mcp.stdio_sdk import serve_with_sdk

            serve_with_sdk(slot.dispatcher(), caller,
                           itertools.chain([session.handoff], lines), write, stop, grace)
            return
        session.workers.drain(grace)
        slot.settle(grace)  # a brain still opening is closed by the caller, not abandoned


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


def read_lines(fd: int) -> Iterator[bytes]:
    """stdin's lines, raw; an oversized line is yielded once, cut, and its rest dropped.

    Plain ``os.read`` on a private descriptor, not ``sys.stdin.buffer``: a
    daemon thread blocked inside a BufferedReader holds its lock, and the
    interpreter aborts at exit trying to take it.
    """
    buffer = b""
    skipping = False  # inside an oversized line, already reported
    try:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                if buffer and not skipping:
                    yield buffer
                return
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            for line in complete:
                if not skipping:
                    yield line
                skipping = False
            if len(buffer) > MAX_LINE_BYTES and not skipping:
                # parse() answers the oversized line; its remainder is dropped.
                yield buffer
                buffer, skipping = b"", True
            elif skipping:
                buffer = b""
    finally:
        os.close(fd)


class _Session:
    """One handshake-era MCP connection: routes each line, answers on ``write``."""

    def __init__(self, slot: BrainSlot, surface: str, caller: Caller,
                 write: Callable[[bytes], None]) -> None:
        self.slot = slot
        self.caller = caller
        self.tools = [op.tool_definition() for op in build_catalog().for_surface(surface)]
        self.workers = Workers()
        self.ended = threading.Event()  # stdin closed, or the connection goes to the SDK
        self.closing = threading.Event()  # stop: read no more requests
        self.handoff: bytes | None = None  # the opening line of an SDK-era connection
        self._opened = False  # the first request decided the era (ours)
        self._listed = False
        self._write = write
        self._lock = threading.Lock()

    def read(self, lines: Iterator[bytes]) -> None:
        """Reader thread: every line until EOF, stop, or a hand-off to the SDK."""
        try:
            for line in lines:
                if self.closing.is_set():
                    return
                if not self.route(line):
                    self.handoff = line
                    return
        finally:
            self.ended.set()

    def route(self, line: bytes) -> bool:
        """Answer or dispatch one line; False when the connection belongs to the SDK."""
        parsed = parse(line)
        if parsed is None:
            return True
        message = check_shape(parsed.value) if isinstance(parsed, Parsed) else parsed
        if not isinstance(message, Message):
            log.warning("stdio: refused a malformed line: %s", message.reason)
            if message.reply is not None:
                self.send_raw(message.reply)
            return True
        if message.method is None or not message.has_id:
            return True  # a response or a notification (initialized, cancelled): nothing owed
        if not self._opened:
            if message.method != "initialize":
                return False
            self._opened = True
        self.request(message)
        return True

    def request(self, message: Message) -> None:
        method, params = message.method, message.params or {}
        if method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments")
            if not isinstance(name, str) or not (arguments is None or isinstance(arguments, dict)):
                self.error(message.request_id, INVALID_PARAMS, "Invalid request parameters")
                return
            self.workers.submit(lambda: self.call(message.request_id, name, arguments or {}))
        elif method == "tools/list":
            self.answer_tools_list(message.request_id)
        elif method == "ping":
            self.result(message.request_id, {})
        elif method == "initialize":
            self.answer_initialize(message.request_id, params)
        else:
            self.error(message.request_id, METHOD_NOT_FOUND, "Method not found", method)

    def answer_initialize(self, request_id: str | int | None, params: dict[str, Any]) -> None:
        version, info = params.get("protocolVersion"), params.get("clientInfo")
        if not (isinstance(version, str) and isinstance(params.get("capabilities"), dict)
                and isinstance(info, dict) and isinstance(info.get("name"), str)
                and isinstance(info.get("version"), str)):
            self.error(request_id, INVALID_PARAMS, "Invalid request parameters")
            return
        self.result(request_id, initialize_result(version))

    def answer_tools_list(self, request_id: str | int | None) -> None:
        if not self._listed:
            self._listed = True
            path = os.environ.get(STARTUP_MODULES_ENV)
            if path:
                Path(path).write_text("\n".join(sorted(sys.modules)) + "\n", encoding="utf-8")
        self.result(request_id, {"tools": self.tools})
        # The host has what it needs to start: open the brain (and warm the
        # model) now, while it is busy with its own start-up.
        self.slot.start()

    def call(self, request_id: str | int | None, name: str,
             arguments: dict[str, Any]) -> Callable[[], None]:
        """Worker thread: one tools/call, through the one dispatcher; returns its delivery."""
        try:
            outcome = self.slot.dispatcher().call(name, arguments, self.caller)
        except BaseException as exc:  # noqa: BLE001 — the edge: the brain did not open
            outcome = self.slot.failure(name, exc)
        reply = self.result_frame(request_id, call_tool_result(outcome))
        return lambda: self.send_raw(reply)

    def result(self, request_id: str | int | None, result: dict[str, Any]) -> None:
        self.send_raw(self.result_frame(request_id, result))

    def result_frame(self, request_id: str | int | None, result: dict[str, Any]) -> bytes:
        return self.frame({"jsonrpc": "2.0", "id": request_id, "result": result})

    def error(self, request_id: str | int | None, code: int, message: str,
              data: Any = "") -> None:
        self.send({"jsonrpc": "2.0", "id": request_id,
                   "error": {"code": code, "message": message, "data": data}})

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(self.frame(message))

    @staticmethod
    def frame(message: dict[str, Any]) -> bytes:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"

    def send_raw(self, data: bytes) -> None:
        with self._lock:  # one frame at a time: replies from several workers interleave
            self._write(data)


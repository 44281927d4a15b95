"""Live activity (``/live``): verb calls as they happen, over server-sent events.

The feed tails the usage log (``ops/usage.py``) rather than hooking this
process's dispatcher: ``brainkeep ui`` and the servers agents talk to are
different processes on one brain, and the log is the one place every
process's calls land. Each event's id is the byte offset after its line, so
a reconnecting ``EventSource`` (``Last-Event-ID``) resumes where it left
off; a rotated log (smaller than the offset) is read from its start. A
stream ends itself after ``STREAM_S`` and the browser reconnects at once,
so a server shutting down never waits long on an idle feed.

The log spans every org and names callers, so remote viewers need
``admin``, and an admin bound to an org sees only its org's calls
(``ops/usage_scope.py``), in the list and on the stream alike.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from brainkeep.console.env import ConsoleEnv, ConsolePage, NavItem
from brainkeep.console.times import full_time, human_time
from brainkeep.console.web import Viewer, caller_of, page, render, session_of
from brainkeep.ops.usage_scope import UsageScope
from brainkeep.ops.usage_series import caller_name

POLL_S = 0.25
STREAM_S = 25.0
RETRY_MS = 500
RECENT = 25
# A line longer than this is not one of ours; skip it rather than buffer without bound.
MAX_CHUNK = 1 << 20


def feed_item(line: dict[str, Any]) -> dict[str, Any]:
    """What the feed shows of one usage line (never the brain path)."""
    ts = str(line.get("ts", ""))
    return {
        "ts": ts,
        # Worded here, by the helper every page uses, so the script only copies text.
        "time": human_time(ts, datetime.now(UTC), style="clock"),
        "time_title": full_time(ts),
        "verb": str(line.get("verb", "")),
        "caller": caller_name(line),
        "transport": str(line.get("transport", "")),
        "ok": line.get("ok") is not False,
        "latency_ms": line.get("latency_ms"),
    }


@dataclass(frozen=True)
class Chunk:
    """New complete lines of the log and the offset just after them."""

    items: tuple[dict[str, Any], ...]
    offset: int


Keep = Callable[[dict[str, Any]], bool]


def _every(_line: dict[str, Any]) -> bool:
    return True


def read_from(path: Path, offset: int, keep: Keep = _every) -> Chunk:
    """Complete lines after byte ``offset`` (from 0 if the log rotated and is now shorter).

    ``keep`` picks the lines the viewer may see; the offset moves past the others too.
    """
    try:
        size = os.path.getsize(path)
    except OSError:
        return Chunk((), 0)
    if size < offset:
        offset = 0
    if size == offset:
        return Chunk((), offset)
    with path.open("rb") as handle:
        handle.seek(offset)
        data = handle.read(min(size - offset, MAX_CHUNK))
    end = data.rfind(b"\n")
    if end < 0:  # a line still being written (or an oversized one): wait, or skip it
        return Chunk((), offset + len(data) if len(data) >= MAX_CHUNK else offset)
    items = []
    for raw in data[: end + 1].splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("verb"), str) and keep(line):
            items.append(feed_item(line))
    return Chunk(tuple(items), offset + end + 1)


def recent(path: Path, count: int = RECENT, keep: Keep = _every) -> Chunk:
    """The last ``count`` calls ``keep`` passes (newest last) and the log's end offset."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return Chunk((), 0)
    start = max(0, size - 256 * count)
    if start > 0:  # skip the partial line the window starts in
        start = _next_line(path, start)
    chunk = read_from(path, start, keep)
    items = chunk.items
    return Chunk(items[-count:], chunk.offset)


def _next_line(path: Path, offset: int) -> int:
    """The offset just after the first newline at or after ``offset - 1``."""
    with path.open("rb") as handle:
        handle.seek(offset - 1)
        handle.readline()
        return handle.tell()


def _sse(item: dict[str, Any], offset: int) -> str:
    return f"id: {offset}\nevent: call\ndata: {json.dumps(item, separators=(',', ':'))}\n\n"


async def stream(request: Request, path: Path, offset: int,
                 keep: Keep = _every) -> AsyncIterator[str]:
    """SSE lines: new calls ``keep`` passes as they are logged, for ``STREAM_S`` seconds."""
    yield f"retry: {RETRY_MS}\n: connected\n\n"
    loop = asyncio.get_running_loop()
    stop_at = loop.time() + STREAM_S
    while loop.time() < stop_at:
        chunk = await run_in_threadpool(read_from, path, offset, keep)
        for item in chunk.items:
            yield _sse(item, chunk.offset)
        offset = chunk.offset
        if await request.is_disconnected():
            return
        await asyncio.sleep(POLL_S)


def _offset(raw: str | None) -> int | None:
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    path = Path(env.brain.settings.usage_path)

    def show(request: Request, viewer: Viewer) -> Response:
        latest = recent(path, keep=UsageScope(env.brain.store, viewer.scope).visible)
        return render(env, request, viewer, "live.html", title="Live activity",
                      items=list(reversed(latest.items)), offset=latest.offset)

    async def events(request: Request) -> Response:
        # An EventSource cannot follow a sign-in redirect, so this endpoint
        # answers 401/403 itself; it resolves the viewer as every page does.
        session = session_of(env, request)
        caller = None if session is None else await run_in_threadpool(caller_of, env, session)
        if caller is None or session is None:
            return PlainTextResponse("Sign in first.", status_code=401)
        viewer = Viewer(caller, session)
        if not viewer.may("admin"):
            return PlainTextResponse("This feed needs the admin scope.", status_code=403)
        scope = UsageScope(env.brain.store, viewer.scope)
        start = _offset(request.headers.get("last-event-id"))
        if start is None:
            start = _offset(request.query_params.get("from"))
        if start is None:  # no cursor: from now on
            start = path.stat().st_size if path.exists() else 0
        return StreamingResponse(stream(request, path, start, scope.visible),
                                 media_type="text/event-stream",
                                 headers={"X-Accel-Buffering": "no"})

    return [
        Route("/live", page(env, show, needs="admin"), methods=["GET"]),
        Route("/live/events", events, methods=["GET"]),
    ]


PAGE = ConsolePage(NavItem("/live", "Live", needs="admin"), routes)

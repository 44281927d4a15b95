"""A real local HTTP server that plays scripted JSON replies to provider clients.

Provider clients talk to it over a real socket on 127.0.0.1 (port 0), so the
tests exercise httpx, our error translation and the wire format together;
nothing in httpx is mocked.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted response: a JSON body (or raw bytes), a status, an optional delay."""

    body: Any = None
    status: int = 200
    raw: bytes | None = None
    delay_s: float = 0.0


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The request body decoded as JSON."""
        return json.loads(self.body)


@dataclass
class ScriptedServer:
    """Replies in script order; records every request it receives."""

    url: str = ""
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[Received] = field(default_factory=list)

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next requests, in order."""
        self.replies.extend(replies)

    @property
    def last(self) -> Received:
        """The most recent request."""
        return self.requests[-1]


def _handler_for(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's naming
            length = int(self.headers.get("Content-Length", "0"))
            server.requests.append(
                Received(
                    method="POST",
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=self.rfile.read(length),
                )
            )
            reply = (
                server.replies.popleft()
                if server.replies
                else Reply({"error": {"message": "unscripted request"}}, status=599)
            )
            if reply.delay_s:
                time.sleep(reply.delay_s)
            payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up first (the timeout tests want exactly that)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler


def start(state: ScriptedServer) -> tuple[ThreadingHTTPServer, threading.Thread]:
    """Serve ``state``'s script on 127.0.0.1 (port 0) in a daemon thread; sets ``state.url``."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(state))
    httpd.daemon_threads = True  # a handler still sleeping must not block teardown
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    # A short poll interval keeps shutdown() (and so each test's teardown) fast.
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    return httpd, thread

"""The host's embedding worker: the local model loaded once for every brainkeep process of a user.

Started by the first process that needs it (``providers/worker_embeddings.py``,
``embeddings.worker = host``): ``python -m brainkeep.providers.embed_worker
--socket S [--idle SECONDS]``. It binds the socket before loading the model
(the bind is the start-up lock: a second worker exits at once), answers
requests as soon as the model is in (a request that arrives earlier waits on
the provider's load), and exits after ``--idle`` seconds without one. The wire format is
in ``worker_embeddings``'s docstring. One thread per connection; the
onnxruntime session is thread-safe.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socketserver
import threading
import time
from pathlib import Path
from typing import Any

from brainkeep.errors import BrainkeepError
from brainkeep.providers.local_embeddings import LOCAL_MODEL_ID, LocalEmbeddingProvider
from brainkeep.providers.worker_embeddings import MAX_REQUEST_BYTES
from brainkeep.unix_socket import bind

log = logging.getLogger("brainkeep.embed_worker")
IDLE_S = 900.0


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str) -> None:
        super().__init__(path, _Handler)
        self.provider = LocalEmbeddingProvider()
        self.last_seen = time.monotonic()


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        while True:
            raw = self.rfile.readline(MAX_REQUEST_BYTES + 1)
            if not raw:
                return
            self.server.last_seen = time.monotonic()
            if not raw.endswith(b"\n"):
                self._answer({"ok": False, "code": "too_large",
                              "message": f"a request line holds at most {MAX_REQUEST_BYTES} "
                              "bytes"})
                return  # the rest of that line cannot be framed
            self._serve(raw)
            self.server.last_seen = time.monotonic()

    def _serve(self, raw: bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            message = None
        op = message.get("op") if isinstance(message, dict) else None
        if op == "ping":
            self._answer({"ok": True, "model": LOCAL_MODEL_ID, "pid": os.getpid()})
        elif op == "quit":
            self._answer({"ok": True})
            threading.Thread(target=self.server.shutdown, daemon=True).start()
        elif op == "embed" and isinstance(message, dict):
            self._embed(message.get("texts"))
        else:
            self._answer({"ok": False, "code": "bad_request",
                          "message": "expected a JSON object with op embed, ping or quit"})

    def _embed(self, texts: Any) -> None:
        if not (isinstance(texts, list) and all(isinstance(t, str) for t in texts)):
            self._answer({"ok": False, "code": "bad_request",
                          "message": "texts must be a list of strings"})
            return
        try:  # a request before the warm-up ends waits on the provider's load lock
            vectors = self.server.provider.embed(texts)
        except BrainkeepError as exc:
            self._answer({"ok": False, "code": exc.code, "message": exc.message})
            return
        rows, dim = vectors.shape
        self._answer({"ok": True, "rows": rows, "dim": dim, "model": LOCAL_MODEL_ID},
                     vectors.astype("<f4").tobytes())

    def _answer(self, header: dict[str, Any], body: bytes = b"") -> None:
        self.wfile.write(json.dumps(header).encode() + b"\n" + body)
        self.wfile.flush()


def serve(path: Path, idle_s: float) -> int:
    """Serve on ``path`` until ``idle_s`` seconds pass without a request (0: another serves)."""
    server = bind(path, _Server)
    if server is None:
        return 0
    stopped = threading.Event()

    def accept() -> None:
        try:
            server.serve_forever()
        finally:
            stopped.set()

    threading.Thread(target=accept, name="accept", daemon=True).start()
    try:
        server.provider.embed(["warm-up"])
    except BrainkeepError as exc:  # every request will answer it; the log says it once
        log.error("the local model did not load: %s", exc.message)
    while not stopped.wait(min(5.0, max(idle_s / 4, 0.05))):
        if time.monotonic() - server.last_seen > idle_s:
            server.shutdown()
    path.unlink(missing_ok=True)  # first: a new client must not reach a closing socket
    server.server_close()
    server.provider.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m brainkeep.providers.embed_worker")
    parser.add_argument("--socket", required=True, type=Path)
    parser.add_argument("--idle", type=float,
                        default=float(os.environ.get("BRAINKEEP_EMBED_WORKER_IDLE_S") or IDLE_S),
                        help="exit after this many seconds without a request")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    return serve(args.socket, args.idle)


if __name__ == "__main__":
    raise SystemExit(main())

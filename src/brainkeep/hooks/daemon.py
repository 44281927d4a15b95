"""The local ambient server: one per brain, started by the first hook that finds none.

A hook process cannot afford to open a brain (numpy, the engines and the
services cost 0.3 s of imports before any read), so the brain is opened
once here and hooks ask over a Unix socket, one JSON line per request:

- ``{"op": "prompt", "prompt", "seen", "budget", "floor"}`` and ``{"op":
  "digest", "workspace", "standing", "seen", "budget"}`` -> ``{"ok", "text",
  "keys", ...}`` (``core/ambient/requests.py``): the reads they make are verbs
  through the dispatcher, as a read-only remote caller (what MCP would see);
- ``{"op": "bank", "path", "format", "wait"}``: import the transcript's new
  turns (queued; ``wait`` answers after it is done);
- ``{"op": "ping"}``; ``{"op": "quit"}`` (stop now; `connect --uninstall` and tests).

It binds the socket before opening the brain (the bind is the start-up lock:
a second server exits), answers once the brain is open, and exits after
``--idle`` seconds without a request. Run: ``python -m brainkeep.hooks.daemon
--home H --socket S``. The embedding model, when configured, loads here, not
in a hook.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import queue
import socketserver
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from brainkeep import __version__
from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.ambient.requests import digest_request, prompt_request
from brainkeep.core.context import Caller
from brainkeep.errors import BrainkeepError
from brainkeep.hooks.backend import HookFailure
from brainkeep.ops.registry import open_dispatcher
from brainkeep.unix_socket import bind, private_dir

log = logging.getLogger("brainkeep.hooks.daemon")
IDLE_S = 900.0
HOOK_CALLER = Caller(remote=True, client_id="hooks", transport="hooks",
                     scopes=frozenset({"read"}))
BANK_WAIT_S = 120.0


class Ambient:
    """The open brain and what a request can do with it."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.dispatcher = open_dispatcher(brain, "full")
        self.jobs: queue.Queue[tuple[str, str, threading.Event, dict[str, Any]]] = queue.Queue()
        self.worker = threading.Thread(target=self._bank_loop, name="bank", daemon=True)
        self.worker.start()

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        if op == "ping":
            return {"ok": True, "version": __version__, "pid": os.getpid()}
        if op in ("prompt", "digest"):
            run = prompt_request if op == "prompt" else digest_request
            try:
                return {"ok": True, **run(self.ask_all, message)}
            except HookFailure as refused:
                return {"ok": False, "code": refused.code}
        if op == "bank":
            done, report = threading.Event(), dict[str, Any]()
            self.jobs.put((str(message.get("path") or ""), str(message.get("format") or "auto"),
                           done, report))
            if message.get("wait"):
                done.wait(BANK_WAIT_S)
                return {"ok": bool(report.get("ok")), **report}
            return {"ok": True, "queued": True}
        return {"ok": False, "code": "bad_payload"}

    def ask_all(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Verbs through the dispatcher, as the hooks' read-only caller; any error fails all."""
        envelopes = []
        for tool, arguments in calls:
            outcome = self.dispatcher.call(tool, arguments, HOOK_CALLER)
            if outcome.is_error:
                raise HookFailure("locked" if outcome.retryable else "error")
            envelopes.append(dict(outcome.payload))
        return envelopes

    def _bank_loop(self) -> None:
        while True:
            path, fmt, done, report = self.jobs.get()
            try:
                report.update(bank(self.brain, path, fmt))
            except BrainkeepError as exc:
                report.update(ok=False, code="locked" if exc.retryable else "error")
            except Exception:  # noqa: BLE001 - the server's edge: log, answer, go on
                log.exception("banking %s failed", fmt)
                report.update(ok=False, code="error")
            finally:
                done.set()


def bank(brain: Brain, path: str, fmt: str) -> dict[str, Any]:
    """Import the transcript's new turns (the importer skips turns it already holds)."""
    if not path or not Path(path).is_file():
        return {"ok": True, "turns_added": 0, "missing": True}
    try:
        from brainkeep.core.transcripts import TranscriptImporter
    except ImportError:
        return {"ok": False, "code": "no_importer"}
    report = TranscriptImporter(brain.pages).import_path(Path(path), fmt=fmt)
    return {"ok": True, "turns_added": int(report.turns_added),
            "secrets_scrubbed": int(report.secrets_scrubbed),
            "pages_written": int(report.pages_written)}


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str) -> None:
        super().__init__(path, _Handler)
        self.ambient: Ambient | None = None
        self.ready = threading.Event()
        self.last_seen = time.monotonic()


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        for raw in self.rfile:
            self.server.last_seen = time.monotonic()
            try:
                message = json.loads(raw)
                if isinstance(message, dict) and message.get("op") == "quit":
                    self.wfile.write(b'{"ok": true}\n')
                    self.wfile.flush()
                    threading.Thread(target=self.server.shutdown, daemon=True).start()
                    return
                self.server.ready.wait()
                ambient = self.server.ambient
                answer = ({"ok": False, "code": "unavailable"} if ambient is None
                          else ambient.handle(message))
            except ValueError:
                answer = {"ok": False, "code": "bad_payload"}
            except BrainkeepError as exc:
                answer = {"ok": False, "code": "locked" if exc.retryable else "unavailable"}
            except Exception:  # noqa: BLE001 - the server's edge: log, answer, go on
                log.exception("hook request failed")
                answer = {"ok": False, "code": "error"}
            self.wfile.write(json.dumps(answer, default=str).encode() + b"\n")
            self.wfile.flush()
            self.server.last_seen = time.monotonic()


def _bind(path: Path) -> _Server | None:
    """The server on ``path``, or None when a live one already answers there (or it is unsafe)."""
    if not private_dir(path.parent):
        log.error("refusing %s: not a directory only this user can enter", path.parent)
        return None
    return bind(path, _Server)


def _warm(brain: Brain) -> None:
    try:
        brain.warm()
    except BrainkeepError as exc:
        log.warning("embeddings not warmed: %s", exc.message)


def serve(home: Path, path: Path, idle_s: float) -> int:
    server = _bind(path)
    if server is None:
        return 0
    stop = threading.Event()

    def watch_idle() -> None:
        while not stop.wait(5.0):
            if time.monotonic() - server.last_seen > idle_s and server.ambient is not None:
                server.shutdown()
                return

    thread = threading.Thread(target=server.serve_forever, name="accept", daemon=True)
    thread.start()
    brain = None
    try:
        brain = open_brain(load_settings(home))
        server.ambient = Ambient(brain)
        # The model (when configured) loads now, not in the first prompt's deadline.
        threading.Thread(target=_warm, args=(brain,), name="warm", daemon=True).start()
    except BrainkeepError as exc:
        log.error("cannot open the brain: %s", exc.message)
    finally:
        server.ready.set()
    if server.ambient is None:
        time.sleep(1.0)  # let the waiting hooks read their "unavailable"
        server.shutdown()
    else:
        threading.Thread(target=watch_idle, name="idle", daemon=True).start()
    thread.join()
    stop.set()
    server.server_close()
    path.unlink(missing_ok=True)
    if brain is not None:
        brain.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m brainkeep.hooks.daemon")
    parser.add_argument("--home", required=True, type=Path)
    parser.add_argument("--socket", required=True, type=Path)
    parser.add_argument("--idle", type=float,
                        default=float(os.environ.get("BRAINKEEP_HOOK_IDLE_S") or IDLE_S))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    return serve(args.home, args.socket, args.idle)


if __name__ == "__main__":
    raise SystemExit(main())

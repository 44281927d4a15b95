"""How a hook reaches the brain: the local ambient server, or a remote `serve --http`.

Both answer ``prompt(request)`` and ``digest(request)``
(``core/ambient/requests.py``) within a deadline: the local server runs them
in its process, which has the brain and the ambient modules loaded; for a
remote brain this process runs them over MCP ``tools/call``. A failure raises
``HookFailure`` with the heartbeat code (the entry point turns it into exit 0
and no output).
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from brainkeep import __version__
from brainkeep.unix_socket import private_dir, runtime_dir, start_helper

SPAWN_WAIT_S = 0.02
# A run that starts the ambient server also waits for it to open the brain
# (imports and migrations: about a second, several on a busy machine).
COLD_START_S = 8.0
LINE_CAP = 16 * 1024 * 1024


class HookFailure(Exception):
    """A hook could not do its work; ``code`` is the heartbeat's outcome code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Deadline:
    """The time left for this hook run."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        remaining = self.end - time.monotonic()
        if remaining <= 0:
            raise HookFailure("timeout")
        return remaining


def socket_path(home: Path, env: dict[str, str] | os._Environ[str]) -> Path:
    """The ambient server's socket: short (AF_UNIX paths cap near 108 bytes), per brain."""
    import hashlib

    key = "\0".join([str(home), env.get("BRAINKEEP_DATABASE_URL", ""), __version__])
    name = hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:20]
    return runtime_dir(env, "BRAINKEEP_HOOK_RUNTIME_DIR") / f"{name}.sock"


class LocalBackend:
    """The per-brain ambient server over a Unix socket, started when none answers."""

    kind = "local"

    def __init__(self, home: Path, env: dict[str, str] | os._Environ[str],
                 deadline: Deadline) -> None:
        self.home, self.env, self.deadline = home, env, deadline
        self.path = socket_path(home, env)
        self._sock: socket.socket | None = None
        self._buffer = b""
        self.spawned = False

    def _connect(self) -> socket.socket:
        if not private_dir(self.path.parent):
            raise HookFailure("unavailable")
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.deadline.left())
            try:
                sock.connect(str(self.path))
                return sock
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                if not self.spawned:
                    self._spawn()
                time.sleep(min(SPAWN_WAIT_S, self.deadline.left()))
            except OSError as exc:
                sock.close()
                raise HookFailure("unavailable") from exc

    def _spawn(self) -> None:
        self.spawned = True
        self.deadline.end += COLD_START_S
        log_dir = self.home / "hooks"
        log_dir.mkdir(parents=True, exist_ok=True)
        start_helper("brainkeep.hooks.daemon", ["--home", str(self.home), "--socket",
                                                str(self.path)], log_dir / "daemon.log", self.env)

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        if self._sock is None:
            self._sock = self._connect()
        sock = self._sock
        try:
            sock.settimeout(self.deadline.left())
            sock.sendall(json.dumps(message).encode() + b"\n")
            while b"\n" not in self._buffer:
                sock.settimeout(self.deadline.left())
                chunk = sock.recv(65536)
                if not chunk:
                    raise HookFailure("unavailable")
                self._buffer += chunk
                if len(self._buffer) > LINE_CAP:
                    raise HookFailure("error")
        except TimeoutError as exc:
            raise HookFailure("timeout") from exc
        except OSError as exc:
            raise HookFailure("unavailable") from exc
        line, _, self._buffer = self._buffer.partition(b"\n")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise HookFailure(str(answer.get("code") or "error"))
        return dict(answer)

    def prompt(self, request: dict[str, Any]) -> dict[str, Any]:
        """``core/ambient/requests.prompt_request``, run by the server (one round trip)."""
        return self.request({"op": "prompt", **request})

    def digest(self, request: dict[str, Any]) -> dict[str, Any]:
        """``core/ambient/requests.digest_request``, run by the server."""
        return self.request({"op": "digest", **request})

    def bank(self, path: str, fmt: str, *, wait: bool) -> dict[str, Any]:
        return self.request({"op": "bank", "path": path, "format": fmt, "wait": wait})

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()


class RemoteBackend:
    """A `serve --http` brain: MCP ``tools/call`` over HTTP with a bearer token."""

    kind = "remote"

    def __init__(self, url: str, token: str, deadline: Deadline, home: Path) -> None:
        self.url, self.token, self.deadline = url, token, deadline
        self.home = home  # where this machine keeps what it already banked there
        self._ids = 0

    def ask(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        return [self.call(tool, arguments) for tool, arguments in calls]

    def prompt(self, request: dict[str, Any]) -> dict[str, Any]:
        """``core/ambient/requests.prompt_request``, run here over MCP calls."""
        from brainkeep.core.ambient.requests import prompt_request

        return prompt_request(self.ask, request)

    def digest(self, request: dict[str, Any]) -> dict[str, Any]:
        from brainkeep.core.ambient.requests import digest_request

        return digest_request(self.ask, request)

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        import http.client

        parts = urlsplit(self.url)
        kind = http.client.HTTPSConnection if parts.scheme == "https" else \
            http.client.HTTPConnection
        self._ids += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self._ids, "method": "tools/call",
                           "params": {"name": tool, "arguments": arguments}})
        try:
            conn = kind(parts.hostname or "127.0.0.1", parts.port, timeout=self.deadline.left())
            conn.request("POST", parts.path or "/mcp", body=body, headers={
                "Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream"})
            response = conn.getresponse()
            raw = response.read(LINE_CAP)
            status = response.status
            conn.close()
        except TimeoutError as exc:
            raise HookFailure("timeout") from exc
        except OSError as exc:
            raise HookFailure("unavailable") from exc
        if status != 200:
            raise HookFailure("unavailable")
        text = raw.decode("utf-8", "replace")
        if text.lstrip().startswith(("event:", "data:")):  # an SSE answer: its data line
            text = next((ln[5:] for ln in text.splitlines() if ln.startswith("data:")), "{}")
        result = json.loads(text).get("result") or {}
        if result.get("isError"):
            raise HookFailure("error")
        content = result.get("content") or [{}]
        return dict(json.loads(content[0].get("text") or "{}"))

    def bank(self, path: str, fmt: str, *, wait: bool) -> dict[str, Any]:
        from brainkeep.hooks import remote_bank

        if not wait:  # a turn's end must not wait for the network: a detached run banks
            remote_bank.spawn(self.url, self.token, path, fmt, self.home)
            return {"queued": True}
        return remote_bank.bank_remotely(self.call, path, fmt,
                                         remote_bank.state_for(self.home, self.url, path))

    def close(self) -> None:
        pass

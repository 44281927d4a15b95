"""Run `brainkeep hook` as the host does: a subprocess fed a documented payload on stdin."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brainkeep.hooks.backend import socket_path

PAYLOADS = Path(__file__).parent / "payloads"
HOOK_TIMEOUT_S = 60


def payload(host: str, event: str, **fields: str) -> bytes:
    """The fixture payload of ``host``/``event`` with its placeholders filled in."""
    text = (PAYLOADS / f"{host}.{event}.json").read_text(encoding="utf-8")
    data = json.loads(text)

    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return fields.get(value.lower(), value)
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value

    return json.dumps({k: fill(v) for k, v in data.items()}).encode()


@dataclass
class Hooks:
    """One brain home's hooks, with a private runtime dir for its ambient server."""

    home: Path
    runtime: Path
    env: dict[str, str]

    def run(self, host: str, event: str, stdin: bytes | None = None, *args: str,
            env: dict[str, str] | None = None, **fields: str) -> subprocess.CompletedProcess[bytes]:
        data = payload(host, event, **fields) if stdin is None else stdin
        return subprocess.run(
            [sys.executable, "-m", "brainkeep", "hook", host, event, "--home", str(self.home),
             *args],
            input=data, capture_output=True, env={**self.env, **(env or {})},
            timeout=HOOK_TIMEOUT_S, check=False)

    def context(self, host: str, event: str, **fields: str) -> str:
        """The injected text ('' when the hook printed nothing); the run must exit 0."""
        done = self.run(host, event, **fields)
        assert done.returncode == 0, done.stderr
        out = done.stdout.decode()
        if not out.strip():
            return ""
        if host == "generic":
            return str(json.loads(out)["context"])
        answer = json.loads(out)
        return str(answer["hookSpecificOutput"]["additionalContext"])

    def heartbeat(self) -> list[dict[str, Any]]:
        path = self.home / "hooks" / "heartbeat.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def stop_server(self) -> None:
        path = socket_path(self.home, self.env)
        if not path.exists():
            return
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(10)
            try:
                sock.connect(str(path))
                sock.sendall(b'{"op": "quit"}\n')
                sock.recv(100)
            except OSError:
                pass


@contextmanager
def hooks_for(home: Path, **env: str) -> Iterator[Hooks]:
    """Hooks on ``home``; its ambient server is stopped afterwards."""
    runtime = Path(tempfile.mkdtemp(prefix="bkh", dir="/tmp"))  # AF_UNIX paths are short
    base = {k: v for k, v in os.environ.items() if not k.startswith("BRAINKEEP_")}
    hooks = Hooks(home, runtime, {**base, "BRAINKEEP_HOOK_RUNTIME_DIR": str(runtime),
                                  "BRAINKEEP_HOOK_IDLE_S": "120", **env})
    try:
        yield hooks
    finally:
        hooks.stop_server()
        shutil.rmtree(runtime, ignore_errors=True)


def claude_transcript(path: Path, session_id: str, turns: list[tuple[str, str]],
                      *, cwd: str = "/w/billing", start: int = 0) -> Path:
    """Append ``turns`` to a Claude Code session log, in its JSONL structure."""
    lines = []
    for offset, (speaker, text) in enumerate(turns):
        n = start + offset
        message: dict[str, Any] = ({"role": "user", "content": text} if speaker == "user" else
                                   {"id": f"msg_{n}", "type": "message", "role": "assistant",
                                    "model": "claude-sonnet-4-5",
                                    "content": [{"type": "text", "text": text}]})
        lines.append({"parentUuid": f"u-{n - 1}" if n else None, "isSidechain": False,
                      "userType": "external", "cwd": cwd, "sessionId": session_id,
                      "version": "2.0.14", "type": speaker, "message": message,
                      "uuid": f"u-{n}", "timestamp": f"2026-11-30T10:{n // 60:02d}:{n % 60:02d}Z"})
    with path.open("a", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")
    return path

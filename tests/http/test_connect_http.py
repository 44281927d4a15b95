"""`brainkeep connect URL` checks a real server: /health and an authenticated tools/list."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from http_support import ServedBrain, ServerProc, server_env


def _connect(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**server_env(home), "HOME": str(home / "user")}
    return subprocess.run([sys.executable, "-m", "brainkeep", "connect", *args, "--json"],
                          env=env, capture_output=True, text=True, timeout=60)


def test_connect_checks_the_server_with_the_token(server: ServerProc,
                                                  served: ServedBrain) -> None:
    result = _connect(served.home, server.url, "--token", served.tokens["rw"],
                      "--install", "cursor")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["check"]["health"]["status"] == "ok" and data["check"]["tools"] > 0
    written = json.loads((served.home / "user" / ".cursor" / "mcp.json").read_text())
    assert written["mcpServers"]["brainkeep"]["url"] == server.url


def test_connect_refuses_a_bad_token(server: ServerProc, served: ServedBrain) -> None:
    result = _connect(served.home, server.url, "--token", "bk_000000000000_nope-nope-nope-nope")
    assert result.returncode == 4, result.stderr  # not allowed (scope_denied), not a bug
    assert "refused the token" in result.stdout + result.stderr


def test_connect_with_oauth_finds_the_discovery_metadata(server: ServerProc,
                                                         served: ServedBrain) -> None:
    result = _connect(served.home, server.url, "--oauth")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["check"]["oauth"] is True

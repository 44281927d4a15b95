"""Start-up imports: `serve` answers tools/list, and `--help` prints, without the heavy stack.

Real subprocesses. `serve` writes the modules loaded when it answers the
first tools/list to ``$BRAINKEEP_STARTUP_MODULES`` (a diagnostic of
``mcp/stdio.py``); `--help` runs under ``-X importtime``, whose stderr names
every module the process imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from brainkeep.brain import open_store
from brainkeep.config import Settings
from brainkeep.mcp.stdio import STARTUP_MODULES_ENV
from brainkeep.store.migrate_marker import MARKER_KEY

# Top-level packages tools/list must not need: the embedding runtime, numpy,
# grpc, the MCP SDK (the lean session answers the handshake era itself), the
# PostgreSQL driver and the HTTP client.
SERVE_BANNED = ("numpy", "onnxruntime", "tokenizers", "grpc", "mcp", "mcp_types", "psycopg",
                "httpx", "pydantic")
HELP_BANNED = ("numpy", "onnxruntime", "tokenizers", "grpc", "mcp", "mcp_types", "psycopg",
               "httpx", "brainkeep.mcp", "brainkeep.brain", "brainkeep.store")
TIMEOUT_S = 60
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "cold-start-test", "version": "1"}}}


def banned_in(modules: set[str], banned: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == b or m.startswith(b + ".") for b in banned))


@pytest.fixture
def local_home(tmp_path: Path) -> Path:
    """A brain configured for the local embedding model (which tools/list must not load)."""
    home = tmp_path / "brain"
    settings = Settings(home=home)
    open_store(settings).close()
    subprocess.run([sys.executable, "-m", "brainkeep", "--home", str(home), "config", "set",
                    "embeddings.provider", "local"], check=True, capture_output=True)
    return home


def handshake(home: Path, modules_file: Path, *lines: dict[str, Any],
              prefix: list[str] | None = None) -> list[dict[str, Any]]:
    """initialize + tools/list (+ ``lines``) against a fresh `serve`; the replies, in order."""
    env = {**os.environ, "BRAINKEEP_HOME": str(home), STARTUP_MODULES_ENV: str(modules_file)}
    messages = [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, *lines]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    argv = prefix or [sys.executable, "-m", "brainkeep"]
    done = subprocess.run([*argv, "serve"], input=stdin.encode(), env=env,
                          capture_output=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stderr.decode()
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_serve_answers_tools_list_without_the_heavy_stack(local_home: Path,
                                                          tmp_path: Path) -> None:
    modules_file = tmp_path / "modules.txt"
    recall = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "recall", "arguments": {"entity": "people/nobody"}}}
    replies = {r["id"]: r for r in handshake(local_home, modules_file, recall)}
    assert replies[1]["result"]["serverInfo"]["name"] == "brainkeep"
    assert {"recall", "remember"} <= {t["name"] for t in replies[2]["result"]["tools"]}
    assert replies[3]["result"]["isError"] is False  # the brain opened after tools/list
    modules = set(modules_file.read_text().split())
    assert "brainkeep.mcp.stdio" in modules and "brainkeep.ops.registry" in modules
    assert banned_in(modules, SERVE_BANNED) == []


def test_the_startup_check_can_fail(local_home: Path, tmp_path: Path) -> None:
    modules_file = tmp_path / "modules.txt"
    preload = [sys.executable, "-c",
               "import sys, numpy; sys.argv[0] = 'brainkeep'; "
               "from brainkeep.cli.main import main; main()"]
    handshake(local_home, modules_file, prefix=preload)
    assert "numpy" in banned_in(set(modules_file.read_text().split()), SERVE_BANNED)


def test_a_brain_that_cannot_open_answers_each_call_with_its_error(tmp_path: Path) -> None:
    home = tmp_path / "brain"
    store = open_store(Settings(home=home))
    store.set_meta(MARKER_KEY, json.dumps({"from": "elsewhere"}))
    store.close()
    recall = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "recall", "arguments": {"entity": "people/nobody"}}}
    replies = {r["id"]: r for r in handshake(home, tmp_path / "m.txt", recall)}
    assert replies[2]["result"]["tools"]  # the catalog needs no brain
    result = replies[3]["result"]
    assert result["isError"] is True
    payload = json.loads(result["content"][0]["text"])
    assert payload["error"] == "unavailable" and "unfinished migration" in payload["message"]
    assert payload["protocol_version"] == 1  # a verb: the MEMORY_VERBS envelope


def imported_by(argv: list[str]) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True,
                          timeout=TIMEOUT_S, text=True)
    assert done.returncode == 0, done.stderr
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def test_help_imports_no_server_stack() -> None:
    modules = imported_by(["-m", "brainkeep", "--help"])
    assert "brainkeep.cli.main" in modules and "click" in modules
    assert banned_in(modules, HELP_BANNED) == []


def test_the_help_check_can_fail() -> None:
    modules = imported_by(["-c", "import numpy, brainkeep.brain"])
    assert {"numpy", "brainkeep.brain"} <= set(banned_in(modules, HELP_BANNED))


def test_a_connection_not_opening_with_initialize_goes_to_the_sdk(tmp_path: Path) -> None:
    """The SDK decides such a connection's era (here: a request before initialize)."""
    home = tmp_path / "brain"
    open_store(Settings(home=home)).close()
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    messages = [{"jsonrpc": "2.0", "id": "early", "method": "tools/list"}, INIT,
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    done = subprocess.run([sys.executable, "-m", "brainkeep", "serve"], input=stdin.encode(),
                          env=env, capture_output=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stderr.decode()
    replies = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert replies["early"]["error"]["code"] == -32602  # the SDK's answer, as before
    assert replies[1]["result"]["serverInfo"]["name"] == "brainkeep"
    assert {"recall", "remember"} <= {t["name"] for t in replies[2]["result"]["tools"]}

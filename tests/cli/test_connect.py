"""`brainkeep connect --install` against a temporary home: the right files, idempotently."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

from brainkeep.connect import HOSTS, Target, config_path, launcher

RunCli = Callable[..., Result]


def ok(result: Result) -> Any:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return json.loads(result.stdout)


def _install(run_cli: RunCli, *extra: str) -> dict[str, Any]:
    args = [a for host in HOSTS for a in ("--install", host)]
    data: dict[str, Any] = ok(run_cli("connect", *args, *extra, "--json"))
    return data


def test_local_install_writes_each_host_then_is_idempotent(run_cli: RunCli, user_home: Path,
                                                          home: Path) -> None:
    brain_home = home.resolve()
    assert run_cli("init").exit_code == 0
    first = _install(run_cli)
    assert [c["changed"] for c in first["changes"]] == [True] * len(HOSTS)
    command = launcher()
    args = [*command[1:], "--home", str(brain_home), "serve"]
    claude = json.loads((user_home / ".claude.json").read_text())
    assert claude["mcpServers"]["brainkeep"] == {"type": "stdio", "command": command[0],
                                                 "args": args}
    codex = tomllib.loads((user_home / ".codex" / "config.toml").read_text())
    assert codex["mcp_servers"]["brainkeep"] == {"command": command[0], "args": args}
    cursor = json.loads((user_home / ".cursor" / "mcp.json").read_text())
    assert cursor["mcpServers"]["brainkeep"]["command"] == command[0]
    desktop = json.loads(config_path("claude-desktop", user_home).read_text())
    assert desktop["mcpServers"]["brainkeep"]["args"] == args
    again = _install(run_cli)
    assert [c["changed"] for c in again["changes"]] == [False] * len(HOSTS)
    assert not list(user_home.rglob("*.brainkeep.bak"))  # nothing was rewritten


def test_existing_entries_are_kept_and_backed_up(run_cli: RunCli, user_home: Path) -> None:
    assert run_cli("init").exit_code == 0
    (user_home / ".claude.json").write_text(json.dumps(
        {"theme": "dark", "mcpServers": {"other": {"command": "x"}}}))
    codex = user_home / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text('model = "o4"\n\n[mcp_servers.brainkeep]\ncommand = "old"\n\n'
                     '[mcp_servers.other]\ncommand = "y"\n')
    ok(run_cli("connect", "--install", "claude-code", "--install", "codex", "--json"))
    claude = json.loads((user_home / ".claude.json").read_text())
    assert claude["theme"] == "dark" and claude["mcpServers"]["other"] == {"command": "x"}
    assert "brainkeep" in claude["mcpServers"]
    parsed = tomllib.loads(codex.read_text())
    assert parsed["model"] == "o4" and parsed["mcp_servers"]["other"] == {"command": "y"}
    assert parsed["mcp_servers"]["brainkeep"]["command"] == launcher()[0]
    backup = json.loads((user_home / ".claude.json.brainkeep.bak").read_text())
    assert "brainkeep" not in backup["mcpServers"]


def test_dry_run_writes_nothing(run_cli: RunCli, user_home: Path) -> None:
    assert run_cli("init").exit_code == 0
    data = ok(run_cli("connect", "--install", "cursor", "--dry-run", "--json"))
    assert data["changes"][0]["changed"] and '"brainkeep"' in data["changes"][0]["after"]
    assert not (user_home / ".cursor").exists()


def test_remote_entries_carry_the_header_or_rely_on_oauth() -> None:
    from brainkeep.connect import entry

    token = Target("https://brain.example.com/mcp", "bk_x")
    assert entry("claude-code", token)["headers"] == {"Authorization": "Bearer bk_x"}
    assert entry("codex", token)["http_headers"] == {"Authorization": "Bearer bk_x"}
    assert entry("claude-desktop", token)["args"][1:3] == ["mcp-remote",
                                                          "https://brain.example.com/mcp"]
    oauth = Target("https://brain.example.com/mcp")
    assert entry("cursor", oauth) == {"url": "https://brain.example.com/mcp"}


def test_print_shows_blocks_for_any_host(run_cli: RunCli) -> None:
    data = ok(run_cli("connect", "https://brain.example.com/mcp", "--oauth", "--print",
                      "--json"))
    assert data["generic"]["mcpServers"]["brainkeep"]["url"] == "https://brain.example.com/mcp"
    assert set(HOSTS) <= set(data)


def test_remote_brain_needs_a_credential(run_cli: RunCli) -> None:
    assert run_cli("connect", "https://brain.example.com/mcp").exit_code != 0

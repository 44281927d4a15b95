"""`connect --install HOST --hooks` / `--uninstall`: entries that name their brain and run."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_connect import ok
from tests.conftest import RunCli
from tests.hooks.hook_support import hooks_for, payload


def test_the_entry_names_the_brain_it_was_installed_for(run_cli: RunCli, user_home: Path,
                                                        home: Path) -> None:
    assert run_cli("init").exit_code == 0
    data = ok(run_cli("connect", "--install", "claude-code", "--json"))
    server = json.loads((user_home / ".claude.json").read_text())["mcpServers"]["brainkeep"]
    assert server["args"][-3:] == ["--home", str(home.resolve()), "serve"]
    assert data["check"]["proof"]["tools"] > 0  # that exact command was started once


def test_the_command_is_absolute_when_brainkeep_is_not_on_path(tmp_path: Path,
                                                               user_home: Path) -> None:
    brain = tmp_path / "brain"
    env = {"HOME": str(user_home), "PATH": "/usr/bin:/bin", "BRAINKEEP_HOME": str(brain)}
    for args in (["init"], ["connect", "--install", "codex", "--install", "claude-code",
                            "--hooks"]):
        done = subprocess.run([sys.executable, "-m", "brainkeep", *args], env=env,
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
    server = json.loads((user_home / ".claude.json").read_text())["mcpServers"]["brainkeep"]
    command = Path(server["command"])
    assert command.is_absolute() and os.access(command, os.X_OK)
    settings = json.loads((user_home / ".claude" / "settings.json").read_text())
    line = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert line.startswith(str(command)) and f"--home {brain.resolve()}" in line


def test_an_entry_with_a_database_url_is_private(run_cli: RunCli, user_home: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.pg_server import brain_database, recycle_database

    url = brain_database()
    monkeypatch.setenv("BRAINKEEP_DATABASE_URL", url)
    try:
        assert run_cli("init").exit_code == 0
        ok(run_cli("connect", "--install", "claude-code", "--install", "cursor", "--json"))
    finally:
        recycle_database(url)
    for path in (user_home / ".claude.json", user_home / ".cursor" / "mcp.json"):
        server = json.loads(path.read_text())["mcpServers"]["brainkeep"]
        assert server["env"] == {"BRAINKEEP_DATABASE_URL": url}
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_hooks_install_keeps_other_hooks_and_uninstall_removes_exactly_ours(
        run_cli: RunCli, user_home: Path) -> None:
    assert run_cli("init").exit_code == 0
    settings = user_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"theme": "dark", "hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "echo mine", "timeout": 3}]}]}}
    settings.write_text(json.dumps(mine))
    first = ok(run_cli("connect", "--install", "claude-code", "--hooks", "--json"))
    assert [c["changed"] for c in first["changes"]] == [True, True]
    data = json.loads(settings.read_text())
    assert data["theme"] == "dark"
    assert data["hooks"]["UserPromptSubmit"][0] == mine["hooks"]["UserPromptSubmit"][0]
    assert set(data["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreCompact", "Stop",
                                  "SessionEnd"}
    again = ok(run_cli("connect", "--install", "claude-code", "--hooks", "--json"))
    assert [c["changed"] for c in again["changes"]] == [False, False]
    ok(run_cli("connect", "--uninstall", "claude-code", "--json"))
    assert json.loads(settings.read_text()) == mine
    assert not (user_home / ".claude.json").exists()  # it only held our entry


def test_dry_run_with_hooks_writes_nothing(run_cli: RunCli, user_home: Path) -> None:
    assert run_cli("init").exit_code == 0
    data = ok(run_cli("connect", "--install", "codex", "--hooks", "--dry-run", "--json"))
    assert [c["kind"] for c in data["changes"]] == ["mcp", "hooks"]
    assert "hook codex user-prompt" in data["changes"][1]["after"]
    assert not (user_home / ".codex").exists()


def test_hooks_need_a_host_that_has_them(run_cli: RunCli, user_home: Path) -> None:
    assert run_cli("init").exit_code == 0
    assert run_cli("connect", "--install", "cursor", "--hooks").exit_code == 2


def test_the_installed_hook_command_runs_as_the_host_runs_it(run_cli: RunCli, user_home: Path,
                                                             home: Path) -> None:
    assert run_cli("init").exit_code == 0
    assert run_cli("remember", "Project Heron ships on Thursdays", "--provenance", "t",
                   "--entity", "Project Heron").exit_code == 0
    ok(run_cli("connect", "--install", "claude-code", "--hooks", "--json"))
    settings = json.loads((user_home / ".claude" / "settings.json").read_text())
    line = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    with hooks_for(home) as hooks:
        done = subprocess.run(["/bin/sh", "-c", line], capture_output=True, timeout=60,
                              input=payload("claude-code", "user-prompt",
                                            prompt="When does Project Heron ship?"),
                              env={**hooks.env, "PATH": "/usr/bin:/bin"}, check=False)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert "ships on Thursdays" in answer["additionalContext"]


def test_the_proof_fails_for_a_command_the_host_could_not_run(tmp_path: Path) -> None:
    from brainkeep.cli.connect_cmd import prove
    from brainkeep.connect import Target
    from brainkeep.errors import Unavailable

    with pytest.raises(Unavailable):
        prove(Target(command=str(tmp_path / "no-such-brainkeep")))
    silent = tmp_path / "silent"
    silent.write_text("#!/bin/sh\ncat >/dev/null\n")
    silent.chmod(0o755)
    with pytest.raises(Unavailable, match="did not answer"):
        prove(Target(command=str(silent)))

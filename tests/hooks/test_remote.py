"""Hooks against a remote brain: a real `serve --http`, a bearer token, both engines."""

from __future__ import annotations

import json
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunCli
from tests.hooks.conftest import seed
from tests.hooks.hook_support import Hooks, claude_transcript, hooks_for, payload
from tests.http.http_support import ServerProc, create_token, start_server, stopped_cleanly

ASK = "Who approves refunds for the Billing service?"


@pytest.fixture
def remote(home: Path, run_cli: RunCli) -> Iterator[tuple[ServerProc, str]]:
    seed(run_cli)
    token = create_token(home, "hooks-agent", "read")
    with stopped_cleanly(start_server(home), "server") as server:
        yield server, token


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Hooks]:
    """This machine's side: a home with no brain in it (only the hooks' files)."""
    with hooks_for(tmp_path / "client") as hooks:
        yield hooks


def test_a_prompt_gets_context_from_the_remote_brain(remote: tuple[ServerProc, str],
                                                     client: Hooks) -> None:
    server, token = remote
    done = client.run("claude-code", "user-prompt", None, "--url", server.url, prompt=ASK,
                      session="r1", env={"BRAINKEEP_HOOK_TOKEN": token})
    assert done.returncode == 0, done.stderr
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Refunds over 500 EUR need a second approver" in text
    assert client.heartbeat()[-1]["backend"] == "remote"
    again = client.run("claude-code", "user-prompt", None, "--url", server.url, prompt=ASK,
                       session="r1", env={"BRAINKEEP_HOOK_TOKEN": token})
    assert again.stdout == b""  # once per session, remote too


def test_session_start_from_the_remote_brain_with_a_token_file(
        remote: tuple[ServerProc, str], client: Hooks, tmp_path: Path) -> None:
    server, token = remote
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    done = client.run("codex", "session-start", None, "--url", server.url, "--token-file",
                      str(token_file), cwd="/w/billing", session="r2")
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Billing service" in text


def test_a_refused_token_fails_open(remote: tuple[ServerProc, str], client: Hooks) -> None:
    server, _ = remote
    done = client.run("claude-code", "user-prompt", None, "--url", server.url, prompt=ASK,
                      env={"BRAINKEEP_HOOK_TOKEN": "bk_wrong"})
    assert done.returncode == 0 and done.stdout == b""
    assert client.heartbeat()[-1]["code"] == "unavailable"


def test_a_transcript_is_banked_into_the_remote_brain_scrubbed_and_once(
        home: Path, run_cli: RunCli, client: Hooks, tmp_path: Path) -> None:
    seed(run_cli)
    writer = create_token(home, "hooks-writer", "read,write")
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    log = claude_transcript(tmp_path / "t.jsonl", "sess-r", [
        ("user", "We need to pick the queue for the Falcon ingest pipeline."),
        ("assistant", "Decision: the Falcon ingest pipeline will use NATS JetStream, "
                      f"deployed with the key {key}."),
    ])
    env = {"BRAINKEEP_HOOK_TOKEN": writer}
    with stopped_cleanly(start_server(home), "server") as server:
        done = client.run("claude-code", "session-end", None, "--url", server.url,
                          transcript=str(log), session="sess-r", env=env)
        assert done.returncode == 0 and done.stdout == b""
        first = client.heartbeat()[-1]
        assert first["code"] == "ok" and first["turns_sent"] == 2, first
        assert first["secrets_scrubbed"] == 1
        client.run("claude-code", "session-end", None, "--url", server.url,
                   transcript=str(log), session="sess-r", env=env)
        assert client.heartbeat()[-1]["turns_sent"] == 0  # nothing new: nothing sent
        claude_transcript(log, "sess-r", [("user", "Retention is 14 days for Falcon.")],
                          start=2)
        stop = client.run("claude-code", "stop", None, "--url", server.url,
                          transcript=str(log), session="sess-r", env=env)
        assert stop.returncode == 0 and client.heartbeat()[-1]["queued"] is True
        banked = wait_for_line(client, "remote-bank")
        assert banked["code"] == "ok" and banked["turns_sent"] == 3, banked  # the part, again
        asked = client.run("claude-code", "user-prompt", None, "--url", server.url,
                           session="sess-r2", env=env,
                           prompt="Which queue did we choose for the Falcon ingest pipeline?")
    text = json.loads(asked.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "NATS JetStream" in text and key not in text
    page = run_cli("get", "transcripts/claude-code/sess-r")
    assert page.exit_code == 0, page.output
    assert "NATS JetStream" in page.output and key not in page.output  # scrubbed before sending


def wait_for_line(client: Hooks, event: str, timeout: float = 60.0) -> dict[str, Any]:
    """The detached banking run's heartbeat line, once it has written it."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        lines = [line for line in client.heartbeat() if line["event"] == event]
        if lines:
            return lines[-1]
        time.sleep(0.1)
    raise AssertionError(f"no {event} heartbeat line within {timeout} s")


def test_a_read_only_token_cannot_bank_and_fails_open(remote: tuple[ServerProc, str],
                                                      client: Hooks, tmp_path: Path) -> None:
    server, token = remote
    log = claude_transcript(tmp_path / "t.jsonl", "sess-ro", [("user", "hello there")])
    done = client.run("claude-code", "session-end", None, "--url", server.url,
                      transcript=str(log), env={"BRAINKEEP_HOOK_TOKEN": token})
    assert done.returncode == 0 and done.stdout == b""
    assert client.heartbeat()[-1]["code"] == "error"


def test_connect_installs_remote_hooks_with_a_private_token(
        remote: tuple[ServerProc, str], run_cli: RunCli, home: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    server, token = remote
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    done = run_cli("connect", server.url, "--token", token, "--install", "claude-code",
                   "--hooks", "--json")
    assert done.exit_code == 0, done.output
    config = user / ".claude.json"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600  # it holds the bearer token
    token_file = home.resolve() / "hooks" / "remote-token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    settings = json.loads((user / ".claude" / "settings.json").read_text())
    line = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert f"--url {server.url}" in line and f"--token-file {token_file}" in line
    assert token not in line
    with hooks_for(tmp_path / "unused") as hooks:
        ran = subprocess.run(["/bin/sh", "-c", line], capture_output=True, timeout=60,
                             input=payload("claude-code", "user-prompt", prompt=ASK),
                             env=hooks.env, check=False)
    assert "second approver" in json.loads(ran.stdout)["hookSpecificOutput"][
        "additionalContext"]

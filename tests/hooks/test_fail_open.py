"""Every way a hook can fail: exit 0, no output, one heartbeat line with the reason."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunCli
from tests.hooks.hook_support import Hooks, hooks_for, payload


@pytest.fixture
def brain_engine() -> str:
    """Failing open does not depend on the engine; the locked file is SQLite's."""
    return "sqlite"


@pytest.fixture
def bare(tmp_path: Path) -> Iterator[Hooks]:
    """Hooks on a home with no brain in it."""
    with hooks_for(tmp_path / "nobrain") as hooks:
        yield hooks


@pytest.fixture
def seeded(home: Path, run_cli: RunCli) -> Iterator[Hooks]:
    """Hooks on a SQLite brain (engine-independent failures), timing out after 2 s."""
    assert run_cli("init").exit_code == 0
    assert run_cli("remember", "The billing service charges cards through Stripe",
                   "--provenance", "t", "--entity", "Billing service").exit_code == 0
    with hooks_for(home, BRAINKEEP_HOOK_TIMEOUT_S="2") as hooks:
        yield hooks


PROMPT = "How does the Billing service charge cards?"


def failed_open(hooks: Hooks, done: subprocess.CompletedProcess[bytes], code: str) -> None:
    assert done.returncode == 0
    assert done.stdout == b""
    last = hooks.heartbeat()[-1]
    assert last["code"] == code, last
    assert isinstance(last["ms"], int)


def test_no_brain(bare: Hooks) -> None:
    done = bare.run("claude-code", "user-prompt", prompt=PROMPT)
    failed_open(bare, done, "no_brain")
    assert not (bare.home / "brain.db").exists()  # a hook never creates a brain


def test_unreadable_config(bare: Hooks) -> None:
    bare.home.mkdir(parents=True)
    (bare.home / "config.json").write_text("{not json")
    failed_open(bare, bare.run("claude-code", "session-start"), "no_brain")


def test_corrupt_database_file(bare: Hooks) -> None:
    bare.home.mkdir(parents=True)
    (bare.home / "brain.db").write_bytes(b"this is not a database" * 100)
    failed_open(bare, bare.run("claude-code", "user-prompt", prompt=PROMPT), "unavailable")


def test_malformed_payload(seeded: Hooks) -> None:
    failed_open(seeded, seeded.run("claude-code", "user-prompt", b'{"prompt": '), "bad_payload")
    failed_open(seeded, seeded.run("claude-code", "user-prompt", b"[1, 2]"), "bad_payload")


def test_invalid_utf8(seeded: Hooks) -> None:
    raw = payload("claude-code", "user-prompt", prompt=PROMPT).replace(b"How", b"\xff\xfeHow")
    failed_open(seeded, seeded.run("claude-code", "user-prompt", raw), "bad_payload")


def test_ten_megabyte_payload(seeded: Hooks) -> None:
    raw = payload("claude-code", "user-prompt", prompt="x" * (10 * 1024 * 1024))
    failed_open(seeded, seeded.run("claude-code", "user-prompt", raw), "too_large")


def test_unknown_host_or_event(seeded: Hooks) -> None:
    for args in (["nohost", "user-prompt"], ["claude-code", "nope"]):
        run = subprocess.run([sys.executable, "-m", "brainkeep", "hook", *args, "--home",
                              str(seeded.home)], input=b"{}", capture_output=True,
                             env=seeded.env, timeout=60, check=False)
        assert run.returncode == 0 and run.stdout == b"" and b"usage" in run.stderr
        assert seeded.heartbeat()[-1]["code"] == "bad_args"


def test_locked_database(seeded: Hooks) -> None:
    """Another process holds the brain exclusively: the hook gives up at its deadline."""
    holder = sqlite3.connect(seeded.home / "brain.db", isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("CREATE TABLE hold_the_lock (x)")
        done = seeded.run("claude-code", "user-prompt", prompt=PROMPT)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    failed_open(seeded, done, "timeout")


def test_remote_server_down(seeded: Hooks) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = seeded.run("claude-code", "user-prompt", None, "--url",
                      f"http://127.0.0.1:{port}/mcp", prompt=PROMPT,
                      env={"BRAINKEEP_HOOK_TOKEN": "bk_nope"})
    failed_open(seeded, done, "unavailable")


def test_a_hook_works_again_once_the_failure_is_gone(seeded: Hooks) -> None:
    failed_open(seeded, seeded.run("claude-code", "user-prompt", b"{oops"), "bad_payload")
    done = seeded.run("claude-code", "user-prompt", prompt=PROMPT)
    assert b"Stripe" in done.stdout
    assert seeded.heartbeat()[-1]["code"] == "ok"


def test_a_socket_directory_others_can_enter_is_refused(seeded: Hooks) -> None:
    """A shared, open directory could hold someone else's fake ambient server."""
    from brainkeep.hooks.backend import socket_path

    folder = socket_path(seeded.home, seeded.env).parent
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    failed_open(seeded, seeded.run("claude-code", "user-prompt", prompt=PROMPT), "unavailable")
    assert not list(folder.iterdir())  # no server was started there

"""Caller identity from the CLI: tokens bound to an org/agent, and the root `--org`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.models import Memory
from brainkeep.core.tokens import TokenService

RunCli = Callable[..., Result]


@pytest.fixture(autouse=True)
def _no_ambient_org(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's BRAINKEEP_ORG must not change what these tests store."""
    monkeypatch.delenv("BRAINKEEP_ORG", raising=False)


def ok(result: Result) -> Any:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return json.loads(result.stdout)


def stored_fact(home: Path, fact_id: str) -> Memory:
    brain = open_brain(load_settings(home, env={}))
    try:
        memory = brain.store.get_memory(int(fact_id))
    finally:
        brain.close()
    assert memory is not None
    return memory


def test_token_create_binds_org_and_agent(run_cli: RunCli, home: Path) -> None:
    assert run_cli("init").exit_code == 0
    created = ok(run_cli("token", "create", "--name", "acme-bot", "--scopes", "read,write",
                         "--org", "acme", "--agent", "bot-1", "--json"))
    assert created["org_id"] == "acme" and created["agent_id"] == "bot-1"
    ok(run_cli("token", "create", "--name", "plain", "--json"))

    listed = {row["name"]: row for row in ok(run_cli("token", "list", "--json"))}
    assert (listed["acme-bot"]["org_id"], listed["acme-bot"]["agent_id"]) == ("acme", "bot-1")
    assert (listed["plain"]["org_id"], listed["plain"]["agent_id"]) == (None, None)
    human = run_cli("token", "list")
    assert human.exit_code == 0
    line = next(ln for ln in human.stdout.splitlines() if ln.startswith("acme-bot"))
    assert "org acme" in line and "agent bot-1" in line

    brain = open_brain(load_settings(home, env={}))
    try:
        row = brain.store.get_live_token_by_name("acme-bot")
        assert row is not None and (row.org_id, row.agent_id) == ("acme", "bot-1")
        event = [e for e in brain.store.iter_events() if e.kind == "token.create"][0]
        assert event.payload["org_id"] == "acme" and event.payload["agent_id"] == "bot-1"
        revoked = TokenService(brain.store, brain.clock).revoke("acme-bot")
        assert (revoked.org_id, revoked.agent_id) == ("acme", "bot-1")  # binding kept
    finally:
        brain.close()


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--org", "acme corp"), ("--org", "x" * 300), ("--agent", "bot/1"), ("--agent", "")],
)
def test_bad_org_or_agent_is_exit_2_and_stores_nothing(
    run_cli: RunCli, home: Path, flag: str, value: str
) -> None:
    assert run_cli("init").exit_code == 0
    result = run_cli("token", "create", "--name", "bad", flag, value)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "not a valid agent id" in result.stderr
    assert ok(run_cli("token", "list", "--json")) == []


def test_root_org_selects_the_tenant_of_remember(run_cli: RunCli, home: Path) -> None:
    assert run_cli("init").exit_code == 0
    in_acme = ok(run_cli("--org", "acme", "remember", "Acme ships on Fridays",
                         "--provenance", "standup", "--json"))
    default = ok(run_cli("remember", "The lab opens at nine", "--provenance", "sign",
                         "--json"))
    assert stored_fact(home, in_acme["id"]).org_id == "acme"
    memory = stored_fact(home, default["id"])
    assert memory.org_id is None and memory.agent_id == ""  # the trusted local caller


def test_root_org_reads_brainkeep_org(
    run_cli: RunCli, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_cli("init").exit_code == 0
    monkeypatch.setenv("BRAINKEEP_ORG", "globex")
    saved = ok(run_cli("remember", "Globex bills quarterly", "--provenance", "invoice",
                       "--json"))
    assert stored_fact(home, saved["id"]).org_id == "globex"


def test_bad_root_org_is_exit_2(run_cli: RunCli) -> None:
    assert run_cli("init").exit_code == 0
    result = run_cli("--org", "no spaces", "remember", "x", "--provenance", "y")
    assert result.exit_code == 2 and "not a valid agent id" in result.stderr


@pytest.mark.parametrize("mode", [["--http", "--port", "0"], ["--grpc", "--grpc-port", "0"]])
@pytest.mark.parametrize("flag", ["--org", "--agent"])
def test_serve_binding_is_refused_off_stdio(
    run_cli: RunCli, home: Path, mode: list[str], flag: str
) -> None:
    assert run_cli("init").exit_code == 0
    # A real process with a deadline: a regression would start serving, not hang the suite.
    result = subprocess.run(
        [sys.executable, "-m", "brainkeep", "--home", str(home), "serve", *mode, flag, "acme"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "do not apply to --http or --grpc" in result.stderr


def test_serve_rejects_a_bad_agent_before_serving(run_cli: RunCli) -> None:
    assert run_cli("init").exit_code == 0
    result = run_cli("serve", "--agent", "bad agent")
    assert result.exit_code == 2 and "not a valid agent id" in result.stderr

"""`brainkeep doctor` reports hook health from the heartbeat log."""

from __future__ import annotations

import json

import pytest

from tests.conftest import RunCli
from tests.hooks.hook_support import Hooks


@pytest.fixture
def brain_engine() -> str:
    return "sqlite"  # the heartbeat is a local file whatever the engine


def test_doctor_counts_runs_failures_and_latency(hooks: Hooks, run_cli: RunCli) -> None:
    before = json.loads(run_cli("doctor", "--json").stdout)["hooks"]
    assert before["runs"] == 0 and before["healthy"] is False
    hooks.run("claude-code", "user-prompt", prompt="Who approves Billing service refunds?")
    hooks.run("claude-code", "user-prompt", b"{broken")
    hooks.run("claude-code", "session-start", cwd="/w/billing")
    data = json.loads(run_cli("doctor", "--json").stdout)["hooks"]
    assert data["runs"] == 3 and data["failed_open"] == 1
    assert data["failures"] == {"bad_payload": 1}
    assert data["items_injected"] >= 1
    assert data["events"]["user-prompt"]["runs"] == 2
    assert data["last"]["event"] == "session-start" and data["healthy"] is True
    human = run_cli("doctor").stdout
    assert "hooks:   3 recent runs, 1 failed open" in human and "bad_payload 1" in human

"""`brainkeep verify` after edits made behind the server's back."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

RunCli = Callable[..., Result]


@pytest.fixture
def filled(run_cli: RunCli) -> None:
    run_cli("init")
    run_cli("put", "people/alice", input="# Alice\n\nLikes tea.\n")
    for i in range(5):
        assert run_cli("remember", f"fact {i}", "-p", "test").exit_code == 0


def tamper(home: Path, sql: str) -> None:
    conn = sqlite3.connect(home / "brain.db")
    try:
        with conn:
            conn.execute(sql)
    finally:
        conn.close()


def test_edited_memory_fails_verify_naming_the_uuid(
    run_cli: RunCli, home: Path, filled: None
) -> None:
    conn = sqlite3.connect(home / "brain.db")
    uuid = conn.execute("SELECT uuid FROM memories WHERE text = 'fact 3'").fetchone()[0]
    conn.close()
    tamper(home, "UPDATE memories SET text = 'fact 3, edited' WHERE text = 'fact 3'")

    result = run_cli("verify", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["valid"] is False
    assert report["first_broken"]["kind"] == "memory"
    assert report["first_broken"]["id"] == uuid
    human = run_cli("verify")
    assert human.exit_code == 1
    assert human.stdout.startswith(f"INVALID: memory {uuid}")

    doctor = json.loads(run_cli("doctor", "--json").stdout)
    assert doctor["chain"]["valid"] is False


def test_edited_page_fails_verify_naming_the_slug(
    run_cli: RunCli, home: Path, filled: None
) -> None:
    tamper(home, "UPDATE pages SET content = '# Alice\n\nLikes coffee.\n'")
    result = run_cli("verify", "--json")
    assert result.exit_code == 1
    broken = json.loads(result.stdout)["first_broken"]
    assert (broken["kind"], broken["slug"]) == ("page", "people/alice")
    assert "(people/alice)" in run_cli("verify").stdout


def test_edited_event_fails_verify_naming_the_seq(
    run_cli: RunCli, home: Path, filled: None
) -> None:
    tamper(home, "UPDATE events SET actor = 'mallory' WHERE seq = 3")
    result = run_cli("verify", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["first_broken"]["kind"] == "event"
    assert report["first_broken"]["id"] == "3"
    assert report["checked"] == 3

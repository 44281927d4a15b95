"""Issue 21, item 9: plain `brainkeep verify` checks every row again, on both engines.

After one clean `verify` (which records its head), a direct database edit
that no newer event names (a private fact flipped to world, a memory row
deleted, a redacted memory's text rewritten) must still make plain `verify`
say INVALID with exit 1; `verify --since-verified` is the explicit cheaper
walk, and says what it did not check. Edits go through a raw connection
(sqlite3 on the brain file, psycopg on the brain's PostgreSQL database), as
someone with database access would make them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import Result

from brainkeep.brain import Brain
from brainkeep.core.memory.remember import RememberInput
from tests.brain_engines import ENGINES, RawDatabase

RunCli = Callable[..., Result]


@pytest.fixture(params=ENGINES)
def brain_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@dataclass(frozen=True)
class Rows:
    private_fact: str  # an MCP/CLI fact with visibility private (uuid)
    plain: str  # bob's only memory, untouched by any later event
    redacted: str  # alice's memory redacted through gRPC Forget


@pytest.fixture
def rows(brain: Brain, run_cli: RunCli) -> Rows:
    assert run_cli("remember", "Alice keeps the spare key under the mat", "-p", "chat",
                   "--visibility", "private").exit_code == 0
    private = RawDatabase(brain.settings.home)
    try:
        (fact,) = private.execute(
            "SELECT uuid FROM memories WHERE visibility = 'private'").fetchone()
    finally:
        private.close()
    plain = brain.mnemo.remember(RememberInput(content="bob plain note",
                                               agent_id="bob")).uuid
    redacted = brain.mnemo.remember(RememberInput(content="alice secret note",
                                                  agent_id="alice")).uuid
    brain.mnemo.forget([redacted], "redact", "alice")
    first = run_cli("verify", "--json")
    assert first.exit_code == 0, first.stdout
    assert json.loads(first.stdout)["mode"] == "full"
    return Rows(str(fact), plain, redacted)


EDITS = {
    "private_fact_to_world": "UPDATE memories SET visibility = 'world' WHERE uuid = ?",
    "memory_row_deleted": "DELETE FROM memories WHERE uuid = ?",
    "redacted_text_rewritten": "UPDATE memories SET text = 'alice secret note' WHERE uuid = ?",
}
TARGET = {"private_fact_to_world": "private_fact", "memory_row_deleted": "plain",
          "redacted_text_rewritten": "redacted"}


def edit(home: Path, case: str, rows: Rows) -> str:
    uuid = str(getattr(rows, TARGET[case]))
    db = RawDatabase(home)
    try:
        db.execute(EDITS[case], (uuid,))
    finally:
        db.close()
    return uuid


@pytest.mark.parametrize("case", sorted(EDITS))
def test_plain_verify_catches_a_direct_edit_after_a_clean_run(
    run_cli: RunCli, home: Path, rows: Rows, case: str
) -> None:
    uuid = edit(home, case, rows)

    result = run_cli("verify", "--json")
    assert result.exit_code == 1, case
    report = json.loads(result.stdout)
    assert report["valid"] is False
    assert report["mode"] == "full" and report["not_checked"] == []
    assert (report["first_broken"]["kind"], report["first_broken"]["id"]) == ("memory", uuid)
    human = run_cli("verify")
    assert human.exit_code == 1
    assert human.stdout.startswith(f"INVALID: memory {uuid}")
    assert "mode: full walk" in human.stdout
    assert run_cli("verify", "--full").exit_code == 1  # the old flag: the same walk


def test_since_verified_says_what_it_did_not_check(run_cli: RunCli, home: Path,
                                                   rows: Rows) -> None:
    head = json.loads(run_cli("verify", "--json").stdout)["head"]["seq"]
    edit(home, "private_fact_to_world", rows)

    result = run_cli("verify", "--since-verified", "--json")
    report = json.loads(result.stdout)
    # The documented trade-off: no newer event names the edited row.
    assert result.exit_code == 0 and report["valid"] is True
    assert (report["mode"], report["from_seq"], report["events_checked"]) == (
        "incremental", head, 0)
    assert any(f"rows not named by events after seq {head} were not re-checked" in item
               for item in report["not_checked"])
    human = run_cli("verify", "--since-verified")
    assert f"not checked: rows not named by events after seq {head}" in human.stdout
    assert "plain `brainkeep verify` checks every row again" in human.stdout
    # ... and plain verify still finds the edit, after any number of cheap runs.
    assert run_cli("verify").exit_code == 1


def test_since_verified_without_a_proved_head_walks_in_full(run_cli: RunCli,
                                                            home: Path) -> None:
    assert run_cli("init").exit_code == 0
    assert run_cli("remember", "a fact", "-p", "test").exit_code == 0
    human = run_cli("verify", "--since-verified")
    assert human.exit_code == 0
    assert "mode: full walk (--since-verified: no proved head to start from)" in human.stdout
    assert "not checked" not in human.stdout
    # That full walk proved its head: the next cheap run starts there.
    report = json.loads(run_cli("verify", "--since-verified", "--json").stdout)
    assert (report["mode"], report["events_checked"]) == ("incremental", 0)


def test_full_and_since_verified_exclude_each_other(run_cli: RunCli, home: Path) -> None:
    assert run_cli("init").exit_code == 0
    result = run_cli("verify", "--full", "--since-verified")
    assert result.exit_code == 2
    assert "exclude each other" in result.stderr

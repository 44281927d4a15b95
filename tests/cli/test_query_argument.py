"""A query as people type it: `recall "Alice"` (positional or `--query`) and `search QUERY`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunCli

ALICE = (
    "---\ntitle: Alice Chen\n---\n"
    "Alice Chen leads the Berlin office and prefers written updates.\n"
)


@pytest.fixture
def seeded(run_cli: RunCli) -> None:
    """A brain with one page and one fact, both matching "Alice"."""
    assert run_cli("init").exit_code == 0
    assert run_cli("put", "people/alice-chen", input=ALICE).exit_code == 0
    saved = run_cli("remember", "Alice likes tea", "-p", "chat", "-e", "people/alice-chen")
    assert saved.exit_code == 0, saved.output


def ok_json(run_cli: RunCli, *args: str) -> dict[str, Any]:
    result = run_cli(*args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_positional_query_is_the_query_option(run_cli: RunCli, seeded: None) -> None:
    positional = ok_json(run_cli, "recall", "Alice")
    assert positional == ok_json(run_cli, "recall", "--query", "Alice")
    # The query reached recall: both arms answered.
    assert [f["fact"] for f in positional["facts"]] == ["Alice likes tea"]
    assert [r["slug"] for r in positional["results"]] == ["people/alice-chen"]


def test_positional_query_composes_with_filters(run_cli: RunCli, seeded: None) -> None:
    both = ok_json(run_cli, "recall", "Berlin", "-e", "people/alice-chen")
    assert both == ok_json(run_cli, "recall", "-e", "people/alice-chen", "--query", "Berlin")
    assert [r["slug"] for r in both["results"]] == ["people/alice-chen"]


def test_query_given_twice_is_a_usage_error(run_cli: RunCli, seeded: None) -> None:
    result = run_cli("recall", "Alice", "--query", "Bob")
    assert result.exit_code == 2
    assert "not both" in result.stderr and "--query" in result.stderr
    assert result.stdout == ""


def test_recall_help_shows_the_argument(run_cli: RunCli) -> None:
    result = run_cli("recall", "--help")
    assert result.exit_code == 0
    assert "recall [OPTIONS] [QUERY]" in result.stdout
    assert "QUERY is the same as --query" in result.stdout
    assert "--query TEXT" in result.stdout


def test_search_is_the_page_arm_alone(run_cli: RunCli, seeded: None) -> None:
    found = ok_json(run_cli, "search", "Alice")
    assert [r["slug"] for r in found["results"]] == ["people/alice-chen"]
    assert "facts" not in found  # pages only: the `search` operation's response
    assert {"slug", "title", "chunk_text", "evidence", "create_safety"} <= set(found["results"][0])
    human = run_cli("search", "Alice")
    assert human.exit_code == 0
    assert "people/alice-chen — Alice Chen" in human.stdout
    assert "Berlin office" in human.stdout  # the snippet
    assert "Alice likes tea" not in human.stdout
    nothing = run_cli("search", "zeppelin")
    assert nothing.exit_code == 0 and "(no pages)" in nothing.stdout
    assert ok_json(run_cli, "search", "Alice", "--limit", "1")["results"][0]["slug"] == (
        "people/alice-chen"
    )


def test_search_needs_a_query(run_cli: RunCli, seeded: None) -> None:
    missing = run_cli("search")
    assert missing.exit_code == 2 and "Missing argument 'QUERY'" in missing.stderr
    blank = run_cli("search", "   ", "--json")
    assert blank.exit_code == 2
    assert json.loads(blank.stderr)["error"] == "invalid_params"


def test_real_process(tmp_path: Path) -> None:
    """The installed entry point, as a shell runs it (no click runner in between)."""
    home = tmp_path / "brain"
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}

    def brainkeep(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "brainkeep", *args], env=env, input=stdin,
                              capture_output=True, text=True, timeout=120)

    assert brainkeep("init").returncode == 0
    assert brainkeep("put", "people/alice-chen", stdin=ALICE).returncode == 0
    assert brainkeep("remember", "Alice likes tea", "-p", "chat").returncode == 0
    recalled = brainkeep("recall", "Alice")
    assert recalled.returncode == 0, recalled.stderr
    assert "Alice likes tea" in recalled.stdout and "people/alice-chen" in recalled.stdout
    searched = brainkeep("search", "Alice", "--json")
    assert searched.returncode == 0, searched.stderr
    assert [r["slug"] for r in json.loads(searched.stdout)["results"]] == ["people/alice-chen"]
    twice = brainkeep("recall", "Alice", "--query", "Alice")
    assert twice.returncode == 2 and "not both" in twice.stderr

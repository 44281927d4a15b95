"""Bad input through the CLI: a clear error on stderr, a documented exit code, nothing written."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from brainkeep.cli.app import EXIT_CODES
from brainkeep.core.limits import MAX_PROVENANCE_CHARS
from brainkeep.core.memory.facts import MAX_FACT_CHARS
from brainkeep.core.pages import MAX_PAGE_BYTES

RunCli = Callable[..., Result]
INVALID = EXIT_CODES["invalid_params"]


def row_counts(home: Path) -> dict[str, int]:
    conn = sqlite3.connect(home / "brain.db")
    try:
        return {
            table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("events", "pages", "memories", "links", "chunks", "page_aliases")
        }
    finally:
        conn.close()


@pytest.fixture
def seeded(run_cli: RunCli, home: Path) -> dict[str, int]:
    """An initialized brain holding one page and one fact; returns its row counts."""
    assert run_cli("init").exit_code == 0
    run_cli("put", "people/alice", input="# Alice\n")
    run_cli("remember", "Alice likes tea", "-p", "chat")
    counts = row_counts(home)
    assert counts["events"] == 2
    return counts


CASES = {
    "malformed yaml": (
        ("put", "people/bob"),
        "---\ntitle: [oops\n---\nbody\n",
        "Malformed YAML frontmatter",
    ),
    "frontmatter not a mapping": (("put", "people/bob"), "---\n- a\n---\n", "YAML mapping"),
    "invalid slug": (("put", "People/Bob Smith"), "# Bob\n", "Invalid slug"),
    "path-like slug": (("put", "../etc/passwd"), "# x\n", "Invalid slug"),
    "content over 1 MiB": (("put", "notes/big"), "x" * (MAX_PAGE_BYTES + 1), "limit is 1048576"),
    "empty fact": (("remember", "   ", "-p", "chat"), None, "The fact is empty"),
    "fact over 4000 chars": (
        ("remember", "y" * (MAX_FACT_CHARS + 1), "-p", "chat"),
        None,
        f"the limit is {MAX_FACT_CHARS}",
    ),
    "missing provenance": (("remember", "A fact"), None, "provenance"),
    "bad ttl": (("remember", "A fact", "-p", "x", "--ttl", "P30D"), None, "ISO 8601 durations"),
    "missing file": (("put", "notes/x", "--file", "/nonexistent/note.md"), None, "No such file"),
    "missing import dir": (("import", "/nonexistent/notes"), None, "not a directory"),
    "unparseable since": (("recall", "--since", "yesterday-ish"), None, "since"),
}


@pytest.mark.parametrize(("args", "stdin", "message"), CASES.values(), ids=CASES.keys())
def test_bad_input_writes_nothing(
    run_cli: RunCli,
    home: Path,
    seeded: dict[str, int],
    args: tuple[str, ...],
    stdin: str | None,
    message: str,
) -> None:
    result = run_cli(*args, input=stdin)
    assert result.exit_code == INVALID, (result.stdout, result.stderr)
    assert message in result.stderr
    assert "fix:" in result.stderr  # every error says how to fix it
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert row_counts(home) == seeded


@pytest.mark.parametrize(("args", "stdin", "message"), CASES.values(), ids=CASES.keys())
def test_bad_input_json_errors(
    run_cli: RunCli,
    home: Path,
    seeded: dict[str, int],
    args: tuple[str, ...],
    stdin: str | None,
    message: str,
) -> None:
    result = run_cli(*args, "--json", input=stdin)
    assert result.exit_code == INVALID
    error = json.loads(result.stderr)
    assert error["error"] in ("invalid_params", "provenance_required")
    assert error["suggestion"]
    assert result.stdout == ""
    assert row_counts(home) == seeded


@pytest.mark.parametrize(
    ("provenance", "code"),
    [("   ", "provenance_required"), ("p" * (MAX_PROVENANCE_CHARS + 1), "invalid_params")],
    ids=["blank", "over the cap"],
)
def test_provenance_error_codes(
    run_cli: RunCli, home: Path, seeded: dict[str, int], provenance: str, code: str
) -> None:
    # The same rule as MCP: only a blank provenance is `provenance_required`.
    result = run_cli("remember", "A fact", "-p", provenance, "--json")
    assert result.exit_code == INVALID
    assert json.loads(result.stderr)["error"] == code
    assert row_counts(home) == seeded


def test_usage_errors_exit_2(run_cli: RunCli, home: Path, seeded: dict[str, int]) -> None:
    # Option values outside a declared choice are rejected by click itself.
    result = run_cli("remember", "A fact", "-p", "x", "--kind", "rumor")
    assert result.exit_code == 2
    assert "'rumor' is not one of" in result.stderr
    assert row_counts(home) == seeded


def test_file_that_is_not_utf8(
    run_cli: RunCli, home: Path, seeded: dict[str, int], tmp_path: Path
) -> None:
    bad = tmp_path / "latin1.md"
    bad.write_bytes("caf\xe9".encode("latin-1"))
    result = run_cli("put", "notes/cafe", "--file", str(bad))
    assert result.exit_code == INVALID
    assert "not UTF-8" in result.stderr
    assert row_counts(home) == seeded


def test_content_at_the_limit_is_accepted(run_cli: RunCli, seeded: dict[str, int]) -> None:
    result = run_cli("put", "notes/big", "--json", input="x" * MAX_PAGE_BYTES)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["status"] == "created"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("get", "people/nobody"), "not_found"),
        (("delete", "people/nobody"), "not_found"),
        (("forget", "999"), "not_found"),
        (("forget", "people/alice"), "not_found"),
    ],
)
def test_not_found_exit_code(
    run_cli: RunCli, home: Path, seeded: dict[str, int], args: tuple[str, ...], code: str
) -> None:
    result = run_cli(*args, "--json")
    assert result.exit_code == EXIT_CODES[code] == 3
    assert json.loads(result.stderr)["error"] == code
    assert row_counts(home) == seeded

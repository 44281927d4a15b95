"""The shell says which entity a name reached, and when it reached none (issue 22 items 1-3)."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

RunCli = Callable[..., Result]
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "notes"


def ok(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture
def notes(run_cli: RunCli) -> RunCli:
    """A brain holding the sample notes (examples/notes), as the quickstart builds it."""
    assert run_cli("init").exit_code == 0
    assert run_cli("import", str(EXAMPLES)).exit_code == 0
    return run_cli


def test_init_suggests_an_entity_the_sample_notes_have(run_cli: RunCli) -> None:
    printed = run_cli("init").stdout
    steps = [line.strip() for line in printed.splitlines() if line.strip().startswith("brainkeep ")]
    remember = next(s for s in steps if s.startswith("brainkeep remember"))
    recall = next(s for s in steps if s.startswith("brainkeep recall"))
    assert run_cli("import", str(EXAMPLES)).exit_code == 0
    # Run the two suggested commands exactly as printed (comments dropped).
    saved = ok(run_cli(*shlex.split(remember, comments=True)[1:], "--json"))
    assert saved["entity_slug"] == "people/alice-chen"
    assert saved["entity_resolution"]["via"] in ("slug", "title", "alias")
    facts = ok(run_cli(*shlex.split(recall, comments=True)[1:], "--json"))["facts"]
    assert [f["fact"] for f in facts] == ["Alice prefers email"]


def test_the_readme_quickstart_names_a_sample_entity(notes: RunCli) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    names = set(re.findall(r'brainkeep (?:remember|recall) [^\n]*?--entity "([^"]+)"', readme))
    assert names, "the README quickstart no longer remembers a fact about an entity"
    for name in names:
        resolved = ok(notes("recall", "--entity", name, "--json"))["entity_resolution"]
        assert resolved["via"] in ("slug", "title", "alias"), (name, resolved)


def test_remember_by_first_name_lands_on_the_page_and_says_so(notes: RunCli) -> None:
    done = notes("remember", "Alice likes Lisbon", "-p", "chat", "-e", "Alice")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines() == [
        "remembered as fact #1",
        "note: 'Alice' taken as people/alice-chen (Alice Chen: the only page name starting "
        "with it)",
    ]
    facts = ok(notes("recall", "-e", "Alice Chen", "--json"))["facts"]
    assert [(f["fact"], f["entity_slug"]) for f in facts] == [
        ("Alice likes Lisbon", "people/alice-chen")]
    card = ok(notes("entity", "Alice Chen", "--json"))["card"]
    assert card["active_fact_count"] == 1


def test_remember_under_a_new_name_says_it_made_one(notes: RunCli) -> None:
    done = notes("remember", "Bob likes tea", "-p", "chat", "-e", "Bob")
    assert done.exit_code == 0, done.stderr
    assert "note: no entity named 'Bob' — filed under new entity 'bob'" in done.stdout
    saved = ok(notes("remember", "Alice likes rain", "-p", "chat", "-e", "people/alice",
                     "--json"))
    assert saved["entity_slug"] == "people/alice"  # an explicit slug is kept ...
    assert "did you mean people/alice-chen (Alice Chen)?" in saved["entity_resolution"]["note"]


def test_recall_says_when_the_entity_matched_nothing(notes: RunCli) -> None:
    done = notes("recall", "-e", "Bob")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines() == [
        "(no facts)", "note: no entity named 'Bob' — showing only facts filed under 'bob'"]
    near = notes("recall", "-e", "people/alice")
    assert near.stdout.splitlines()[0] == "(no facts)"
    assert "did you mean people/alice-chen (Alice Chen)?" in near.stdout
    resolved = ok(notes("recall", "-e", "Bob", "--json"))["entity_resolution"]
    assert (resolved["via"], resolved["slug"]) == ("new", "bob")
    # A name that reaches the page prints no note.
    assert "note:" not in notes("recall", "-e", "Alice Chen").stdout

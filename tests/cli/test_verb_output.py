"""What the memory verbs print for a person at the shell (the JSON envelope is tested elsewhere)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brainkeep.brain import open_brain
from brainkeep.config import Settings
from tests.cli.test_page_cmd_edges import run


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "brain"
    brain = open_brain(Settings(home=home))  # keyword-only: no embedding provider
    try:
        brain.pages.put_page("notes/trip", "---\ntitle: Trip notes\n---\nWe flew to Lisbon.\n")
    finally:
        brain.close()
    return home


def test_remember_prints_one_plain_sentence(home: Path) -> None:
    done = run(home, "remember", "Alice likes Lisbon", "-p", "chat")
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first == "remembered as fact #1", done.stdout  # not "inserted: fact 1 (…#1)"


def test_keyword_only_recall_does_not_call_a_weak_keyword_hit_semantic(home: Path) -> None:
    data = json.loads(run(home, "recall", "--query", "Lisbon Berlin", "--json").stdout)
    assert data["search_degraded"] == "keyword_only_no_embedding_provider"
    assert [r["evidence"] for r in data["results"]] == ["weak_semantic"]  # the frozen wire value
    shown = run(home, "recall", "--query", "Lisbon Berlin").stdout
    assert "page notes/trip — Trip notes [weak keyword match]" in shown, shown
    assert "weak_semantic" not in shown


def test_no_brain_is_not_found_not_an_internal_error(tmp_path: Path) -> None:
    for args in (("recall", "--query", "x"), ("entity", "Alice"), ("list",)):
        done = run(tmp_path / "nowhere", *args)
        assert done.returncode == 3, (args, done.returncode, done.stderr)
        assert "No brain at" in done.stderr and "Internal error" not in done.stderr
    as_json = run(tmp_path / "nowhere", "recall", "--query", "x", "--json")
    assert json.loads(as_json.stderr)["error"] == "not_found"


def test_an_entity_miss_is_an_answer_exit_0(home: Path) -> None:
    done = run(home, "entity", "Nobody Atall")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("not found")
    assert json.loads(run(home, "entity", "Nobody Atall", "--json").stdout)["found"] is False


def test_verb_help_is_written_for_a_person_and_marks_required_options(home: Path) -> None:
    text = run(home, "remember", "--help").stdout
    assert "Save one fact" in text and "Examples:" in text
    assert "Branch on" not in text and "MEMORY VERB" not in text  # the agent-facing text
    assert "characters). [required]" in " ".join(text.split())
    for verb in ("recall", "entity", "forget", "context-pack", "delta", "synthesize", "search"):
        shown = run(home, verb, "--help").stdout
        assert "Example" in shown and "Branch on" not in shown, verb


def test_a_missing_required_option_names_the_flag(home: Path) -> None:
    done = run(home, "remember", "Alice likes tea")
    assert done.returncode == 2
    assert "error: -p/--provenance is required." in done.stderr
    assert "input schema" not in done.stderr  # that advice is for an MCP agent
    as_json = json.loads(run(home, "remember", "Alice likes tea", "--json").stderr)
    assert as_json["error"] == "invalid_params" and "-p/--provenance" in as_json["suggestion"]

"""Importing transcripts into a real brain: pages, links, recall, idempotency, secrets."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from brainkeep.brain import Brain
from brainkeep.core.context import LOCAL
from brainkeep.core.transcripts import TranscriptImporter
from tests.conftest import RunCli
from tests.transcripts.conftest import FIXTURES

CLAUDE_CODE = FIXTURES / "claude_code_session.jsonl"
CODEX = FIXTURES / "codex_rollout.jsonl"
CC_SLUG = "transcripts/claude-code/5c1f8a2e-3b7d-4e0a-9c6f-2d8b1a7e4f30"
CODEX_SLUG = "transcripts/codex/0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"


def _person(brain: Brain, slug: str, title: str) -> None:
    brain.pages.put_page(slug, f"---\ntitle: {title}\ntype: person\n---\n{title}.\n")


def test_a_claude_code_session_becomes_a_page_with_turns_speakers_and_times(brain: Brain) -> None:
    _person(brain, "people/priya-raman", "Priya Raman")
    report = TranscriptImporter(brain.pages).import_path(CLAUDE_CODE)

    assert (report.files, report.conversations, report.turns_added) == (1, 1, 4)
    assert report.pages_written == 1 and report.slugs == (CC_SLUG,)
    page = brain.pages.get_page(CC_SLUG, LOCAL)
    assert page.type == "transcript" and page.title == "Northwind deploy pipeline fix"
    assert page.frontmatter["transcript"]["project"] == "/home/dana/code/northwind"
    assert "## user · 2026-03-02T09:14:03.120Z" in page.content
    assert "> The runner moved to ubuntu-24.04, which dropped Python 3.9." in page.content
    # The two lines of one assistant reply (same message id) are one turn; the
    # tool call is kept short, thinking, sidechain and meta lines are not kept.
    assert "[tool call: Read]" in page.content and "[tool result]" in page.content
    assert "Let me check the workflow file first" not in page.content
    assert "sub-agent prompt" not in page.content and "Caveat:" not in page.content
    links = brain.pages.links(CC_SLUG, LOCAL)
    assert [(link.to_slug, link.link_type) for link in links] == [
        ("people/priya-raman", "mentions")]


def test_a_codex_rollout_keeps_messages_and_tool_calls_but_not_injected_context(
    brain: Brain,
) -> None:
    report = TranscriptImporter(brain.pages).import_path(CODEX, fmt="codex")

    assert report.turns_added == 4 and report.slugs == (CODEX_SLUG,)
    page = brain.pages.get_page(CODEX_SLUG, LOCAL)
    assert page.frontmatter["transcript"]["project"] == "/home/dana/code/ledger"
    assert "<environment_context>" not in page.content
    assert "gAAAAABo-encrypted" not in page.content
    assert "[tool call: shell]" in page.content
    assert "server-side cursor with itersize 5000" in page.content
    # event_msg mirrors are duplicates of the response items: kept once.
    assert page.content.count("> Why does the ledger export time out?") == 1


def test_imported_turns_are_found_by_recall(brain: Brain, run_cli: RunCli) -> None:
    TranscriptImporter(brain.pages).import_path(CODEX)

    result = run_cli("recall", "server-side cursor itersize", "--json")

    assert result.exit_code == 0, result.output
    slugs = [hit["slug"] for hit in json.loads(result.stdout)["results"]]
    assert slugs[:1] == [CODEX_SLUG]


def test_the_same_file_twice_writes_nothing(brain: Brain) -> None:
    importer = TranscriptImporter(brain.pages)
    importer.import_path(CLAUDE_CODE)
    events_before = brain.store.counts()

    again = importer.import_path(CLAUDE_CODE)

    assert (again.pages_written, again.turns_added, again.turns_skipped) == (0, 0, 4)
    assert again.pages_unchanged == 1
    assert brain.store.counts() == events_before


def test_an_appended_session_adds_only_the_new_turns(brain: Brain, tmp_path: Path) -> None:
    session = tmp_path / "session.jsonl"
    shutil.copy(CLAUDE_CODE, session)
    importer = TranscriptImporter(brain.pages)
    importer.import_path(session)
    line = {"parentUuid": "a6", "type": "user", "sessionId": "5c1f8a2e-3b7d-4e0a-9c6f-2d8b1a7e4f30",
            "uuid": "a7", "timestamp": "2026-03-02T09:20:00.000Z",
            "message": {"role": "user", "content": "Great, ship it to production on Friday."}}
    with session.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")

    report = importer.import_path(session)

    assert (report.turns_added, report.turns_skipped, report.pages_written) == (1, 4, 1)
    page = brain.pages.get_page(CC_SLUG, LOCAL)
    headings = [line for line in page.content.splitlines() if line.startswith("## ")]
    assert len(headings) == 5 and headings[-1] == "## user · 2026-03-02T09:20:00.000Z"
    assert page.frontmatter["transcript"]["last_turn"] == 4

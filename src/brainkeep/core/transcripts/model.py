"""Transcript values: a conversation, its turns, a parsed file, an import report."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

FORMATS = ("claude-code", "codex", "chatgpt", "claude-ai")
SPEAKERS = ("user", "assistant", "tool", "system")


@dataclass(frozen=True)
class Turn:
    """One utterance, verbatim (before scrubbing), with who said it and when.

    ``index`` counts the conversation's kept turns from 0; ``at`` is an ISO
    8601 timestamp (UTC ``Z`` when the source gave epoch seconds) or None;
    ``uid`` is the source's own message id when it has one.
    """

    index: int
    speaker: str
    text: str
    at: str | None
    uid: str | None = None


@dataclass(frozen=True)
class Conversation:
    """One conversation of one transcript format; ``project`` is the agent's cwd."""

    id: str
    title: str
    fmt: str
    started_at: str | None
    turns: tuple[Turn, ...]
    project: str | None = None


@dataclass(frozen=True)
class ParsedFile:
    """What a parser read from one file.

    ``skipped_lines`` counts JSONL lines that were not JSON objects (a torn
    last line, invalid UTF-8, garbage); ``problems`` says why, briefly (line
    numbers, never the line's text, which may hold a secret).
    """

    fmt: str
    conversations: tuple[Conversation, ...]
    skipped_lines: int = 0
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportReport:
    """What an import did; ``to_dict`` is the `transcripts import --json` summary."""

    files: int = 0
    conversations: int = 0
    turns_added: int = 0
    turns_skipped: int = 0
    secrets_scrubbed: int = 0
    pages_written: int = 0
    pages_unchanged: int = 0
    skipped_lines: int = 0
    slugs: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()  # "slug: why" of each page that was refused
    # Pages the injection scorer held for review (stored private; core/quarantine).
    quarantined: int = 0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["slugs"] = list(self.slugs)
        data["failed"] = list(self.failed)
        return data

    def plus(self, other: ImportReport) -> ImportReport:
        """The two reports added up (slugs concatenated)."""
        return ImportReport(
            files=self.files + other.files,
            conversations=self.conversations + other.conversations,
            turns_added=self.turns_added + other.turns_added,
            turns_skipped=self.turns_skipped + other.turns_skipped,
            secrets_scrubbed=self.secrets_scrubbed + other.secrets_scrubbed,
            pages_written=self.pages_written + other.pages_written,
            pages_unchanged=self.pages_unchanged + other.pages_unchanged,
            skipped_lines=self.skipped_lines + other.skipped_lines,
            slugs=self.slugs + other.slugs,
            failed=self.failed + other.failed,
            quarantined=self.quarantined + other.quarantined,
        )

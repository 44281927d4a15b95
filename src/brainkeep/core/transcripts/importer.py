"""Importing transcripts: scrub, lay out as pages, write only what changed."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from brainkeep.core.audit import page_hash
from brainkeep.core.markdown import normalize_content
from brainkeep.core.pages import PageService
from brainkeep.core.secrets import scrub
from brainkeep.core.transcripts.formats import parse
from brainkeep.core.transcripts.layout import clip_turn, render_parts
from brainkeep.core.transcripts.mentions import SKIPPED_TYPES, EntityIndex
from brainkeep.core.transcripts.model import Conversation, ImportReport, Turn
from brainkeep.errors import InvalidInput

Progress = Callable[[int, int], None]
# Pages written per transaction on a big export: one commit (one fsync on
# SQLite) per batch instead of per page, and the write lock is given back
# between batches so a serving process is not starved. Everything a page
# costs (scrubbed already, but parsed, scored for injection, chunked) runs
# under the lock, ~15 ms a 64 KiB part here: 16 parts hold it ~0.25 s.
WRITE_BATCH = 16


def storable(text: str) -> str:
    """``text`` without what a page cannot hold: NUL characters and lone surrogates.

    Both occur in real logs (a binary tool output, a JSON ``\\ud83d`` escape cut
    in half); refusing the whole conversation for them would lose the rest.
    """
    if "\x00" in text:
        text = text.replace("\x00", "")
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = text.encode("utf-8", "replace").decode("utf-8")
    return text


@dataclass(frozen=True)
class _Prepared:
    conversation: Conversation
    secrets: int


def scrub_conversation(conv: Conversation) -> _Prepared:
    """``conv`` with every secret replaced (title, project, turns) and long turns clipped.

    Scrubbing runs before clipping, so a cut never leaves half a key behind.
    """
    found = 0
    turns: list[Turn] = []
    for turn in conv.turns:
        cleaned = scrub(storable(turn.text))
        found += cleaned.count
        turns.append(dataclasses.replace(turn, text=clip_turn(cleaned.text)))
    title = scrub(storable(conv.title))
    project = scrub(storable(conv.project)) if conv.project else None
    found += title.count + (project.count if project else 0)
    return _Prepared(
        dataclasses.replace(conv, title=title.text, turns=tuple(turns),
                            project=project.text if project else None),
        found,
    )


@dataclass(frozen=True)
class TranscriptImporter:
    """Writes conversations as transcript pages (core/transcripts/layout.py).

    Idempotent: a page is written only when its rendered content differs
    from the stored one, so the same file twice writes nothing and an
    appended transcript rewrites only its last part and adds new ones.

    Args:
        pages: the brain's page service (its embedder, if any, only reuses
            stored vectors here; run the embedding backfill afterwards).
        actor: recorded on every page.put event.
        link_entities: link each part to the entity pages it mentions.
        private: write the pages with ``visibility: private``.
    """

    pages: PageService
    actor: str = "transcripts"
    link_entities: bool = True
    private: bool = False

    def import_path(
        self, path: str | Path, *, fmt: str = "auto", progress: Progress | None = None
    ) -> ImportReport:
        """Import every conversation in one file.

        Raises:
            InvalidInput: unreadable file, unknown format, invalid JSON export.
        """
        parsed = parse(Path(path), fmt)
        report = self.import_conversations(parsed.conversations, progress=progress)
        return dataclasses.replace(report, files=1, skipped_lines=parsed.skipped_lines)

    def import_conversations(
        self, conversations: Iterable[Conversation], *, progress: Progress | None = None
    ) -> ImportReport:
        """Import conversations already parsed (or built by a hook from its payload)."""
        items = list(conversations)
        pages = self._text_only_pages()
        index = self._entity_index() if self.link_entities else EntityIndex()
        finder = index.find if index else None
        report = ImportReport()
        done = 0
        while done < len(items):
            with pages.store.transaction():
                written = 0
                while done < len(items) and written < WRITE_BATCH:
                    one = self._one(pages, items[done], finder)
                    report = report.plus(one)
                    written += one.pages_written
                    done += 1
                    if progress is not None:
                        progress(done, len(items))
        return report

    def _one(
        self, pages: PageService, conv: Conversation,
        finder: Callable[[str], list[tuple[str, str]]] | None,
    ) -> ImportReport:
        prepared = scrub_conversation(conv)
        parts = render_parts(prepared.conversation, finder, private=self.private)
        stored = pages.store.get_pages(pages.source_id, [p.slug for p in parts])
        known = max((_last_turn(page.frontmatter) for page in stored.values()), default=-1)
        written = unchanged = held = 0
        failed: list[str] = []
        for part in parts:
            page = stored.get(part.slug)
            if page is not None and page.content_hash == page_hash(normalize_content(part.content)):
                unchanged += 1
                continue
            try:
                # A savepoint inside the batch: a refused page rolls back alone.
                result = pages.put_page(part.slug, part.content, actor=self.actor)
            except InvalidInput as exc:
                failed.append(f"{part.slug}: {exc.message}")
                continue
            if result.status == "unchanged":
                unchanged += 1
            else:
                written += 1
                held += result.quarantined
        total = len(prepared.conversation.turns)
        added = max(0, total - 1 - known) if written else 0
        return ImportReport(
            conversations=1,
            turns_added=added,
            turns_skipped=total - added,
            secrets_scrubbed=prepared.secrets,
            pages_written=written,
            pages_unchanged=unchanged,
            slugs=tuple(p.slug for p in parts),
            failed=tuple(failed),
            quarantined=held,
        )

    def _text_only_pages(self) -> PageService:
        # The model must not run inside the write transactions (nor in a hook
        # process): pages are written as text, unchanged chunks keep their
        # stored vectors, and `brainkeep embed` (or the CLI after import)
        # fills in the rest.
        if self.pages.embedder is None:
            return self.pages
        from brainkeep.core.embedding import stored_vectors_only

        return dataclasses.replace(self.pages, embedder=stored_vectors_only(self.pages.embedder))

    def _entity_index(self) -> EntityIndex:
        rows = self.pages.store.entity_names(self.pages.source_id,
                                             exclude_types=tuple(sorted(SKIPPED_TYPES)))
        return EntityIndex.from_names(rows)


def _last_turn(frontmatter: dict[str, object]) -> int:
    meta = frontmatter.get("transcript")
    value = meta.get("last_turn") if isinstance(meta, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else -1

"""Import a folder of markdown notes; export every page back to markdown."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from brainkeep.core.context import LOCAL
from brainkeep.core.pages import PageService
from brainkeep.core.slugs import slugify, validate_slug
from brainkeep.errors import BrainkeepError, InvalidInput

# Files per transaction: big enough to amortize the commit, small enough
# that a crash mid-import loses little work (re-runs skip what landed).
IMPORT_BATCH = 250

Progress = Callable[[int, int, str], None]


@dataclass
class ImportSummary:
    """Counts of an import run, plus each failed file and why."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.added + self.updated + self.unchanged + len(self.failed)


def slug_for_path(root: Path, path: Path) -> str:
    """Slug of a note from its path relative to the import root."""
    relative = path.relative_to(root).with_suffix("")
    return slugify(relative.as_posix())


def markdown_files(root: Path) -> list[Path]:
    """Every `.md` file under ``root`` (hidden folders skipped), in a stable order."""
    return sorted(
        p
        for p in root.rglob("*.md")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def import_dir(pages: PageService, root: Path, progress: Progress | None = None) -> ImportSummary:
    """Load every markdown file under ``root``; a bad file never aborts the rest.

    Raises:
        InvalidInput: ``root`` is not a directory.
    """
    if not root.is_dir():
        raise InvalidInput(
            f"{root} is not a directory.",
            suggestion="Pass a folder of .md notes, e.g. `brainkeep import ./notes`.",
            field="dir",
        )
    files = markdown_files(root)
    summary = ImportSummary()
    # The model must not run while a batch holds the write lock: import
    # writes text only, and the caller backfills vectors afterwards
    # (`brainkeep import` does; a library caller runs core.embedding_jobs).
    pages = dataclasses.replace(pages, embedder=None)
    for start in range(0, len(files), IMPORT_BATCH):
        batch = files[start : start + IMPORT_BATCH]
        with pages.store.transaction():
            for offset, path in enumerate(batch):
                rel = path.relative_to(root).as_posix()
                try:
                    slug = validate_slug(slug_for_path(root, path), field="path")
                    content = path.read_text(encoding="utf-8")
                    # put_page's own transaction is a savepoint here, so a
                    # failing file rolls back alone.
                    result = pages.put_page(slug, content, actor="import")
                except UnicodeDecodeError as exc:
                    summary.failed.append((rel, f"not UTF-8 text: {exc.reason}"))
                except (BrainkeepError, OSError) as exc:
                    summary.failed.append((rel, str(exc)))
                else:
                    if result.status == "created":
                        summary.added += 1
                    elif result.status == "updated":
                        summary.updated += 1
                    else:
                        summary.unchanged += 1
                if progress:
                    progress(start + offset + 1, len(files), rel)
    if summary.added or summary.updated:
        pages.store.optimize()  # bulk writes: refresh planner statistics
    return summary


def export_dir(pages: PageService, root: Path, progress: Progress | None = None) -> int:
    """Write every live page to ``root/<slug>.md`` verbatim; returns the count."""
    root.mkdir(parents=True, exist_ok=True)
    written = 0
    after: str | None = None
    total = pages.store.counts()["pages"]
    while True:
        batch = pages.list_pages(LOCAL, after_slug=after, limit=500)
        if not batch:
            return written
        for page in batch:
            target = root / f"{page.slug}.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(page.content, encoding="utf-8")
            written += 1
            if progress:
                progress(written, total, page.slug)
        after = batch[-1].slug

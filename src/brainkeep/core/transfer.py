"""Import a folder of markdown notes; export every page back to markdown.

Neither direction follows a symbolic link out of the folder it was given: a
link in a notes folder may point anywhere (``~/.ssh``, another user's files),
and what import reads becomes world-visible pages. Import reads a link only
when its target resolves inside the import root (others are skipped and
listed in the summary); export never writes through a link at all.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import stat
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
# Absent on Windows; there the resolve-and-contain check stands alone.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

Progress = Callable[[int, int, str], None]


@dataclass
class ImportSummary:
    """Counts of an import run, plus each failed file and why."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    # Symlinks not followed (target outside the import root, or dangling).
    skipped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.added + self.updated + self.unchanged + len(self.failed)


def slug_for_path(root: Path, path: Path) -> str:
    """Slug of a note from its path relative to the import root."""
    relative = path.relative_to(root).with_suffix("")
    return slugify(relative.as_posix())


def scan_markdown(root: Path) -> tuple[list[Path], list[tuple[str, str]]]:
    """The `.md` files under ``root`` safe to read, and the symlinks skipped (with why).

    Hidden files and folders are skipped. A symlinked file is kept only when
    its target resolves to a regular file inside ``root``; a symlinked folder
    is never descended (one inside ``root`` is imported at its real path, and
    not descending rules out link cycles).
    """
    real_root = root.resolve()
    files: list[Path] = []
    skipped: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        for name in list(dirnames):
            if name.startswith("."):
                dirnames.remove(name)
            elif (here / name).is_symlink():
                dirnames.remove(name)
                if not (here / name).resolve().is_relative_to(real_root):
                    rel = (here / name).relative_to(root).as_posix()
                    skipped.append((rel, "symlinked folder points outside the import folder"))
        for name in filenames:
            path = here / name
            if name.startswith(".") or not name.endswith(".md"):
                continue
            if path.is_symlink():
                reason = _unsafe_link(path, real_root)
                if reason:
                    skipped.append((path.relative_to(root).as_posix(), reason))
                    continue
            elif not path.is_file():  # a FIFO or socket would block or fail the read
                continue
            files.append(path)
    return sorted(files), sorted(skipped)


def _unsafe_link(path: Path, real_root: Path) -> str | None:
    """Why the symlink ``path`` must not be read, or None when its target is safe."""
    target = path.resolve()
    if not target.is_relative_to(real_root):
        return "symlink points outside the import folder; not followed"
    if not target.is_file():
        return "symlink does not point to a file (dangling or a folder); not followed"
    return None


def markdown_files(root: Path) -> list[Path]:
    """Every `.md` file under ``root`` safe to read (see ``scan_markdown``), in a stable order."""
    return scan_markdown(root)[0]


def _read_note(path: Path, real_root: Path) -> str:
    """The text of a scanned note, refusing a link swapped in since the scan.

    Raises:
        InvalidInput: the note now resolves outside the import root.
        OSError: unreadable, or its last component became a symlink (ELOOP).
    """
    target = path.resolve()
    if not target.is_relative_to(real_root):
        raise InvalidInput("The file now resolves outside the import folder; not read.")
    # No final link followed: one swapped in since the resolve fails (ELOOP).
    fd = os.open(target, os.O_RDONLY | _NOFOLLOW)
    with open(fd, encoding="utf-8") as handle:  # universal newlines, as read_text
        return handle.read()


def check_import_root(root: Path) -> None:
    """Fail before any work (or progress output) when ``root`` cannot be imported.

    Raises:
        InvalidInput: ``root`` is not a directory.
    """
    if not root.is_dir():
        raise InvalidInput(
            f"{root} is not a directory.",
            suggestion="Pass a folder of .md notes, e.g. `brainkeep import examples/notes`.",
            field="dir",
        )


def import_dir(pages: PageService, root: Path, progress: Progress | None = None) -> ImportSummary:
    """Load every markdown file under ``root``; a bad file never aborts the rest.

    Raises:
        InvalidInput: ``root`` is not a directory.
    """
    check_import_root(root)
    files, skipped = scan_markdown(root)
    real_root = root.resolve()
    summary = ImportSummary(skipped=skipped)
    # The model must not run while a batch holds the write lock: import
    # writes text only (reusing stored vectors of unchanged chunks), and the
    # caller backfills vectors afterwards (`brainkeep import` does; a library
    # caller runs core.embedding_jobs).
    # Imported here: core.embedding pulls in numpy, which export and a
    # provider-less import never need.
    from brainkeep.core.embedding import stored_vectors_only

    pages = dataclasses.replace(pages, embedder=stored_vectors_only(pages.embedder))
    for start in range(0, len(files), IMPORT_BATCH):
        batch = files[start : start + IMPORT_BATCH]
        with pages.store.transaction():
            for offset, path in enumerate(batch):
                rel = path.relative_to(root).as_posix()
                try:
                    slug = validate_slug(slug_for_path(root, path), field="path")
                    content = _read_note(path, real_root)
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


def stale_files(root: Path, pages: PageService) -> list[str]:
    """The ``.md`` files under ``root`` that are no live page's export, relative, sorted.

    After ``export_dir`` into a folder that held an older export (or other
    notes), these are the files it left as they were: a later ``import`` of
    the folder would bring deleted or renamed pages back. Export never deletes
    them (they may be the user's own notes); the CLI warns and lists them.
    """
    if not root.is_dir():
        return []
    rels = [path.relative_to(root).as_posix() for path in markdown_files(root)]
    stale: list[str] = []
    for start in range(0, len(rels), 500):
        batch = rels[start:start + 500]
        live = pages.store.get_pages(pages.source_id, [rel[: -len(".md")] for rel in batch])
        stale += [rel for rel in batch if rel[: -len(".md")] not in live]
    return sorted(stale)


def export_dir(pages: PageService, root: Path, progress: Progress | None = None) -> int:
    """Write every live page to ``root/<slug>.md`` verbatim; returns the count.

    ``root`` itself may be a symlink (the caller named it); nothing inside it
    may be: each folder and file is opened relative to its parent's
    descriptor without following links, so no write lands outside ``root``.

    Raises:
        InvalidInput: a folder or file the export needs is a symbolic link
            (dangling or not), or a file sits where a folder is needed.
    """
    try:
        root.mkdir(parents=True, exist_ok=True)
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except (FileExistsError, NotADirectoryError) as exc:  # a file or a dangling link
        raise InvalidInput(
            f"Cannot export into {root}: it is not a folder (a file or a dangling link).",
            suggestion="Pass a folder path that does not exist yet, or an existing folder.",
            field="dir",
        ) from exc
    written = 0
    after: str | None = None
    total = pages.store.counts()["pages"]
    try:
        while True:
            batch = pages.list_pages(LOCAL, after_slug=after, limit=500)
            if not batch:
                return written
            for page in batch:
                _write_no_follow(root_fd, root, f"{page.slug}.md", page.content)
                written += 1
                if progress:
                    progress(written, total, page.slug)
            after = batch[-1].slug
    finally:
        os.close(root_fd)


def _write_no_follow(root_fd: int, root: Path, rel: str, content: str) -> None:
    """Write ``root/rel``, creating folders, never through a symbolic link."""
    *folders, name = rel.split("/")
    fd = os.dup(root_fd)
    try:
        done: list[str] = []
        for part in folders:
            done.append(part)
            try:
                os.mkdir(part, dir_fd=fd)
            except FileExistsError:
                pass  # an existing folder, or a link/file checked just below
            _refuse_link(fd, part, root, done)
            try:
                child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if (problem := _in_the_way(root, done, exc)) is None:
                    raise
                raise problem from exc
            os.close(fd)
            fd = child
        done.append(name)
        _refuse_link(fd, name, root, done)
        try:
            out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, 0o666,
                          dir_fd=fd)
        except OSError as exc:
            if (problem := _in_the_way(root, done, exc)) is None:
                raise
            raise problem from exc
        with open(out, "w", encoding="utf-8") as handle:
            handle.write(content)
    finally:
        os.close(fd)


def _refuse_link(dir_fd: int, name: str, root: Path, done: list[str]) -> None:
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise _link_refusal(root, done)


def _in_the_way(root: Path, done: list[str], exc: OSError) -> InvalidInput | None:
    """A caller-fixable obstacle as ``InvalidInput``; None for any other OS failure."""
    if exc.errno == errno.ELOOP:  # a link appeared between the check and the open
        return _link_refusal(root, done)
    if exc.errno in (errno.ENOTDIR, errno.EISDIR):
        return InvalidInput(
            f"Cannot export to {root / '/'.join(done)}: a "
            f"{'file' if exc.errno == errno.ENOTDIR else 'folder'} is in the way.",
            suggestion="Export into an empty folder, or move that entry away.",
            field="dir",
        )
    return None


def _link_refusal(root: Path, done: list[str]) -> InvalidInput:
    return InvalidInput(
        f"Refusing to export through the symbolic link {root / '/'.join(done)}: "
        "it could point outside the export folder.",
        suggestion="Remove the link, or export into an empty folder.",
        field="dir",
    )

"""Import a folder of notes, export it back; bad files never abort a run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL
from brainkeep.core.transfer import export_dir, import_dir, markdown_files, slug_for_path
from brainkeep.errors import InvalidInput

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "notes"

NOTES = {
    "people/alice-example.md": (
        "---\ntitle: Alice Example\naliases: [Ali]\nworks_at: companies/acme-example\n---\n"
        "Alice leads [[projects/atlas]].\n\n## Timeline\n\n- 2024-01-15: Joined Acme\n"
    ),
    "companies/acme-example.md": "---\ntitle: Acme Example\ntype: company\n---\nMakes anvils.\n",
    "projects/atlas.md": "# Atlas\n\nOwned by [Alice](../people/alice-example.md).\n",
    "Inbox Note.md": "Free-form note without frontmatter.\n",
    "people/private-one.md": "---\nvisibility: private\n---\nNot for agents.\n",
}


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    write(root, dict(NOTES))
    write(root, {".obsidian/cache.md": "hidden", "attachments/readme.txt": "not markdown"})
    return root


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Brain]:
    other = open_brain(load_settings(tmp_path / "fresh", env={}))
    try:
        yield other
    finally:
        other.close()


def test_files_and_slugs(notes: Path) -> None:
    files = markdown_files(notes)
    assert [slug_for_path(notes, f) for f in files] == [
        "inbox-note",
        "companies/acme-example",
        "people/alice-example",
        "people/private-one",
        "projects/atlas",
    ]


def test_import_summary_progress_and_idempotent_rerun(brain: Brain, notes: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    summary = import_dir(
        brain.pages, notes, lambda done, total, name: seen.append((done, total, name))
    )
    assert (summary.added, summary.updated, summary.unchanged, summary.failed) == (5, 0, 0, [])
    assert summary.total == 5
    assert [s[0] for s in seen] == [1, 2, 3, 4, 5]
    assert {s[1] for s in seen} == {5}
    assert seen[0][2] == "Inbox Note.md"
    assert brain.pages.get_page("people/alice-example", LOCAL).title == "Alice Example"
    events = brain.store.counts()["events"]

    again = import_dir(brain.pages, notes)
    assert (again.added, again.updated, again.unchanged, again.failed) == (0, 0, 5, [])
    assert brain.store.counts()["events"] == events  # unchanged files write nothing

    (notes / "projects/atlas.md").write_text("# Atlas\n\nRescoped.\n", encoding="utf-8")
    third = import_dir(brain.pages, notes)
    assert (third.added, third.updated, third.unchanged) == (0, 1, 4)


def test_bad_files_are_reported_and_the_rest_imported(brain: Brain, notes: Path) -> None:
    write(
        notes,
        {
            "broken/yaml.md": "---\ntitle: [unclosed\n---\nbody\n",
            "broken/latin1.md": "caf\xe9 au lait".encode("latin-1"),
            "broken/visibility.md": "---\nvisibility: team\n---\n",
        },
    )
    summary = import_dir(brain.pages, notes)
    assert summary.added == 5
    failed = dict(summary.failed)
    assert sorted(failed) == ["broken/latin1.md", "broken/visibility.md", "broken/yaml.md"]
    assert "not UTF-8" in failed["broken/latin1.md"]
    assert "Malformed YAML" in failed["broken/yaml.md"]
    assert brain.store.counts()["pages"] == 5
    assert brain.store.counts()["events"] == 5


def test_missing_directory_is_invalid_input(brain: Brain, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="not a directory"):
        import_dir(brain.pages, tmp_path / "nope")
    assert brain.store.counts()["events"] == 0


def snapshot(brain: Brain) -> dict[str, tuple[object, ...]]:
    out: dict[str, tuple[object, ...]] = {}
    for page in brain.pages.list_pages(LOCAL, limit=500):
        links = sorted(
            (ln.to_slug, ln.link_type, ln.link_source, ln.context)
            for ln in brain.pages.links(page.slug, LOCAL)
        )
        timeline = [(e.date, e.summary, e.detail) for e in brain.pages.timeline(page.slug, LOCAL)]
        aliases = brain.store.page_aliases(page.id)
        out[page.slug] = (
            page.content_hash,
            page.title,
            page.type,
            page.visibility,
            page.frontmatter,
            tuple(links),
            tuple(timeline),
            tuple(aliases),
        )
    return out


def test_export_then_import_reproduces_pages(
    brain: Brain, fresh: Brain, notes: Path, tmp_path: Path
) -> None:
    import_dir(brain.pages, notes)
    brain.pages.put_page(
        "notes/windows",
        "---\r\ntitle: CRLF\r\n---\r\nline\r\n\r\n"
        "## Timeline\r\n- 2024-02-02: Saved on Windows\r\n",
    )
    brain.pages.put_page("notes/gone", "deleted before export")
    brain.pages.delete_page("notes/gone", LOCAL)

    count = export_dir(brain.pages, tmp_path / "export")
    assert count == 6
    assert (tmp_path / "export/people/alice-example.md").read_text(encoding="utf-8") == (
        NOTES["people/alice-example.md"]
    )
    assert not (tmp_path / "export/notes/gone.md").exists()

    summary = import_dir(fresh.pages, tmp_path / "export")
    assert (summary.added, summary.failed) == (6, [])
    assert snapshot(fresh) == snapshot(brain)
    assert fresh.pages.timeline("notes/windows", LOCAL)[0].summary == "Saved on Windows"


def test_bom_and_crlf_files_keep_their_frontmatter(brain: Brain, tmp_path: Path) -> None:
    root = tmp_path / "win"
    write(root, {"people/zoe.md": b"\xef\xbb\xbf---\r\ntitle: Zo\xc3\xab\r\n---\r\nHi.\r\n"})
    assert import_dir(brain.pages, root).added == 1
    page = brain.pages.get_page("people/zoe", LOCAL)
    assert (page.title, page.content) == ("Zoë", "---\ntitle: Zoë\n---\nHi.\n")
    assert import_dir(brain.pages, root).unchanged == 1


def test_shipped_examples_import_cleanly(brain: Brain) -> None:
    summary = import_dir(brain.pages, EXAMPLES)
    assert summary.failed == []
    assert 8 <= summary.added <= 12
    types = {p.type for p in brain.pages.list_pages(LOCAL)}
    assert {"person", "company", "project"} <= types
    assert any(p.is_private for p in brain.pages.list_pages(LOCAL))
    assert brain.store.counts()["links"] >= 10
    assert brain.store.counts()["timeline_entries"] >= 3

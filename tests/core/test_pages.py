"""Pages through PageService on a real SQLite brain."""

from __future__ import annotations

from pathlib import Path

import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL, STDIO
from brainkeep.core.entities import resolve_entity
from brainkeep.core.pages import MAX_PAGE_BYTES
from brainkeep.core.transfer import export_dir, import_dir
from brainkeep.errors import InvalidInput, NotFound

ALICE = """---
title: Alice Example
aliases: [Ali, Zoë A.]
works_at: companies/acme-example
---
Alice builds the billing platform with [[people/bob-example|Bob]].

## Timeline

- 2024-01-15: Joined Acme
"""


def events(brain: Brain) -> int:
    return brain.store.counts()["events"]


def test_put_created_updated_unchanged(brain: Brain) -> None:
    first = brain.pages.put_page("people/alice-example", ALICE)
    assert first.status == "created"
    assert events(brain) == 1

    same = brain.pages.put_page("people/alice-example", ALICE)
    assert same.status == "unchanged"
    assert same.page.updated_at == first.page.updated_at
    assert events(brain) == 1  # unchanged content writes nothing

    changed = brain.pages.put_page("people/alice-example", ALICE + "\nMore.\n")
    assert changed.status == "updated"
    assert changed.page.id == first.page.id
    assert changed.page.created_at == first.page.created_at
    assert changed.page.updated_at > first.page.updated_at
    assert changed.page.content_hash != first.page.content_hash
    assert events(brain) == 2
    kinds = [e.payload["status"] for e in brain.store.events_for("page", str(first.page.id))]
    assert kinds == ["created", "updated"]


def test_get_returns_the_stored_page(brain: Brain) -> None:
    put = brain.pages.put_page("people/alice-example", ALICE)
    page = brain.pages.get_page("people/alice-example", LOCAL)
    assert page == put.page
    assert page.title == "Alice Example"
    assert page.type == "person"
    assert page.content == ALICE
    assert page.frontmatter["works_at"] == "companies/acme-example"
    with pytest.raises(NotFound):
        brain.pages.get_page("people/nobody", LOCAL)


def test_aliases_are_found_normalized(brain: Brain) -> None:
    brain.pages.put_page("people/alice-example", ALICE)
    found = resolve_entity(brain.store, "default", "zoe a", include_private=True)
    assert found.best is not None and found.best.slug == "people/alice-example"
    assert found.matched_by == "alias"
    assert brain.store.page_aliases(found.best.id) == ["Ali", "Zoë A."]


def test_list_filters_and_pagination(brain: Brain) -> None:
    for slug in ("people/a", "people/b", "people/c", "companies/x"):
        brain.pages.put_page(slug, f"# {slug}\n")
    cutoff = brain.clock.now_ts()
    brain.pages.put_page("projects/p", "---\ntype: initiative\n---\nbody\n")
    brain.pages.put_page("people/a", "# changed\n")

    def slugs(**kw: object) -> list[str]:
        return [p.slug for p in brain.pages.list_pages(LOCAL, **kw)]  # type: ignore[arg-type]

    assert slugs() == ["companies/x", "people/a", "people/b", "people/c", "projects/p"]
    assert slugs(type="person") == ["people/a", "people/b", "people/c"]
    assert slugs(type="initiative") == ["projects/p"]
    assert slugs(prefix="people/") == ["people/a", "people/b", "people/c"]
    assert slugs(updated_after=cutoff) == ["people/a", "projects/p"]
    assert slugs(prefix="people/", updated_after=cutoff) == ["people/a"]
    assert slugs(limit=2) == ["companies/x", "people/a"]
    assert slugs(limit=2, after_slug="people/a") == ["people/b", "people/c"]
    assert slugs(limit=2, after_slug="projects/p") == []


@pytest.mark.parametrize("limit", [0, -1, 501])
def test_list_limit_bounds(brain: Brain, limit: int) -> None:
    with pytest.raises(InvalidInput):
        brain.pages.list_pages(LOCAL, limit=limit)


def test_soft_delete_hides_page_but_keeps_row(brain: Brain) -> None:
    def found(query: str) -> list[str]:
        return [r.slug for r in brain.search.search(query, include_private=True, limit=5).results]

    put = brain.pages.put_page("people/alice-example", ALICE)
    brain.pages.put_page("notes/n", "Alice Example is mentioned here. [[people/alice-example]]")
    assert found("billing platform") == ["people/alice-example"]

    brain.pages.delete_page("people/alice-example", LOCAL)

    with pytest.raises(NotFound):
        brain.pages.get_page("people/alice-example", LOCAL)
    assert found("billing platform") == []
    assert [p.slug for p in brain.pages.list_pages(LOCAL)] == ["notes/n"]
    kept = brain.store.get_page("default", "people/alice-example", include_deleted=True)
    assert kept is not None and kept.deleted_at is not None and kept.content == ALICE
    assert brain.store.counts()["pages_deleted"] == 1
    assert brain.store.links_to("default", "companies/acme-example") == []
    last = brain.store.events_for("page", str(put.page.id))[-1]
    assert last.kind == "page.delete"
    with pytest.raises(NotFound):
        brain.pages.delete_page("people/alice-example", LOCAL)

    again = brain.pages.put_page("people/alice-example", ALICE)
    assert again.status == "created"
    assert again.page.id == put.page.id
    assert brain.pages.get_page("people/alice-example", LOCAL).deleted_at is None


def test_links_and_backlinks(brain: Brain) -> None:
    brain.pages.put_page("people/alice-example", ALICE)
    brain.pages.put_page(
        "notes/standup", "Met [[people/alice-example]] and [Bob](people/bob-example.md)."
    )
    out = [
        (ln.to_slug, ln.link_type, ln.link_source)
        for ln in brain.pages.links("people/alice-example", LOCAL)
    ]
    assert out == [
        ("companies/acme-example", "works_at", "frontmatter"),
        ("people/bob-example", "mentions", "mentions"),
    ]
    back = brain.pages.backlinks("people/bob-example", LOCAL)
    assert sorted((ln.from_slug, ln.link_source) for ln in back) == [
        ("notes/standup", "markdown"),
        ("people/alice-example", "mentions"),
    ]
    assert [ln.context for ln in back if ln.from_slug == "people/alice-example"] == ["Bob"]
    # Edges are derived from content: an update replaces them.
    brain.pages.put_page("people/alice-example", "no links now")
    assert brain.pages.links("people/alice-example", LOCAL) == []
    assert [ln.from_slug for ln in brain.pages.backlinks("people/bob-example", LOCAL)] == [
        "notes/standup"
    ]


def test_timeline(brain: Brain) -> None:
    content = ALICE.replace(
        "- 2024-01-15: Joined Acme", "- 2024-03-01: Second\n- 2024-01-15: First"
    )
    brain.pages.put_page("people/alice-example", content)
    entries = brain.pages.timeline("people/alice-example", LOCAL)
    assert [(e.slug, e.date, e.summary) for e in entries] == [
        ("people/alice-example", "2024-01-15", "First"),
        ("people/alice-example", "2024-03-01", "Second"),
    ]


def test_private_page_hidden_from_remote_caller(brain: Brain) -> None:
    brain.pages.put_page("people/secret", "---\nvisibility: private\n---\nSecret [[people/bob]].")
    brain.pages.put_page("people/open", "Open [[people/bob]].")
    assert brain.pages.get_page("people/secret", LOCAL).is_private
    with pytest.raises(NotFound) as info:
        brain.pages.get_page("people/secret", STDIO)
    assert "secret" in info.value.message  # same error as a missing page
    assert [p.slug for p in brain.pages.list_pages(STDIO)] == ["people/open"]
    assert [p.slug for p in brain.pages.list_pages(LOCAL)] == ["people/open", "people/secret"]
    assert [ln.from_slug for ln in brain.pages.backlinks("people/bob", STDIO)] == ["people/open"]
    with pytest.raises(NotFound):
        brain.pages.links("people/secret", STDIO)
    with pytest.raises(NotFound):
        brain.pages.delete_page("people/secret", STDIO)
    local = brain.search.search("secret", include_private=True, limit=5).results
    remote = brain.search.search("secret", include_private=False, limit=5).results
    assert [r.slug for r in local] == ["people/secret"]
    assert [r.slug for r in remote] == []


@pytest.mark.parametrize(
    ("slug", "content", "field"),
    [
        ("Bad Slug", "x", "slug"),
        ("notes/x", "x" * (MAX_PAGE_BYTES + 1), "content"),
        ("notes/x", "é" * (MAX_PAGE_BYTES // 2 + 1), "content"),  # bytes, not characters
        ("notes/x", "---\ntitle: [oops\n---\n", "content"),
        ("notes/x", "undecodable byte \udcff from stdin", "content"),
    ],
    ids=["invalid-slug", "over-1MiB", "over-1MiB-in-bytes", "malformed-yaml", "lone-surrogate"],
)
def test_bad_input_writes_nothing(brain: Brain, slug: str, content: str, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        brain.pages.put_page(slug, content)
    assert info.value.field == field
    assert brain.store.counts()["pages"] == 0
    assert brain.store.counts()["events"] == 0


def test_content_at_the_size_limit_is_accepted(brain: Brain) -> None:
    assert brain.pages.put_page("notes/big", "x" * MAX_PAGE_BYTES).status == "created"


def test_add_link_and_timeline_entry_survive_export_import(brain: Brain, tmp_path: Path) -> None:
    brain.pages.put_page("people/alice-example", ALICE)
    brain.pages.add_link("people/alice-example", "companies/globex", "advises", LOCAL)
    brain.pages.add_link("people/alice-example", "companies/initech", "advises", LOCAL)
    brain.pages.add_timeline_entry(
        "people/alice-example", "2024-05-05", "Gave a talk", LOCAL, detail="At PyCon."
    )
    with pytest.raises(InvalidInput):
        brain.pages.add_link("people/alice-example", "companies/x", "title", LOCAL)
    with pytest.raises(InvalidInput):
        brain.pages.add_timeline_entry("people/alice-example", "2024-02-30", "x", LOCAL)

    export_dir(brain.pages, tmp_path / "out")
    fresh = open_brain(load_settings(tmp_path / "fresh", env={}))
    try:
        summary = import_dir(fresh.pages, tmp_path / "out")
        assert (summary.added, summary.failed) == (1, [])
        links = {
            (ln.to_slug, ln.link_type) for ln in fresh.pages.links("people/alice-example", LOCAL)
        }
        assert {
            ("companies/globex", "advises"),
            ("companies/initech", "advises"),
            ("companies/acme-example", "works_at"),
        } <= links
        timeline = fresh.pages.timeline("people/alice-example", LOCAL)
        assert [(e.date, e.summary, e.detail) for e in timeline] == [
            ("2024-01-15", "Joined Acme", ""),
            ("2024-05-05", "Gave a talk", "At PyCon."),
        ]
    finally:
        fresh.close()

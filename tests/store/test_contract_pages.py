"""Contract: pages and what is derived from them (aliases, links, timeline, lookups)."""

from __future__ import annotations

from brainkeep.core.models import Link, TimelineEntry
from brainkeep.core.ports.store import Store
from tests.store.contract import PRIVATE_PAGE, page_draft, put_page, ts

ALICE = """---
title: Alice Example
type: person
aliases: [Ally, "Dr. Zoë A."]
employer: companies/acme
summary: An example person
---
# Alice

Works with [[people/bob|Bob]] and [Carol](people/carol.md).

## Timeline
- 2024-02-01: Joined Acme
  as an engineer
- 2024-01-01: Moved to Lyon
"""

PRIVATE = PRIVATE_PAGE


def test_save_page_inserts_then_updates_in_place(store: Store) -> None:
    with store.transaction():
        created = store.save_page(page_draft("people/alice", ALICE), ts(1), existing=None)
    assert created.id > 0
    assert (created.title, created.type, created.summary) == (
        "Alice Example", "person", "An example person")
    assert created.frontmatter["employer"] == "companies/acme"
    assert created.created_at == created.updated_at == ts(1)
    assert store.get_page("default", "people/alice") == created

    with store.transaction():
        updated = store.save_page(page_draft("people/alice", "# Alice v2\n"), ts(2),
                                  existing=created)
    assert updated.id == created.id
    assert (updated.created_at, updated.updated_at) == (ts(1), ts(2))
    assert store.get_page("default", "people/alice") == updated
    # Derived rows are replaced, not accumulated.
    assert store.page_aliases(created.id) == []
    assert store.links_from("default", "people/alice") == []
    assert store.timeline(created.id) == []


def test_get_page_hides_deleted_pages_unless_asked(store: Store) -> None:
    page = put_page(store, "notes/a", "# A\n")
    with store.transaction():
        store.mark_page_deleted(page.id, ts(9))
    assert store.get_page("default", "notes/a") is None
    deleted = store.get_page("default", "notes/a", include_deleted=True)
    assert deleted is not None and deleted.deleted_at == ts(9)
    assert store.get_page("default", "notes/missing", include_deleted=True) is None
    assert store.get_page("other-source", "notes/a") is None
    # Saving over a deleted page revives it under the same id.
    revived = put_page(store, "notes/a", "# A again\n", ts(10))
    assert revived.id == page.id and revived.deleted_at is None
    assert store.get_page("default", "notes/a") == revived


def test_get_pages_returns_live_pages_by_slug(store: Store) -> None:
    a = put_page(store, "notes/a", "# A\n")
    put_page(store, "notes/b", "# B\n")
    gone = put_page(store, "notes/gone", "# Gone\n")
    with store.transaction():
        store.mark_page_deleted(gone.id, ts(1))
    found = store.get_pages("default", ["notes/a", "notes/gone", "notes/missing"])
    assert found == {"notes/a": a}
    assert store.get_pages("default", []) == {}


def test_aliases_links_and_timeline_are_derived(store: Store) -> None:
    alice = put_page(store, "people/alice", ALICE)
    assert store.page_aliases(alice.id) == ["Ally", "Dr. Zoë A."]
    assert store.alias_norms_for("default", ["people/alice", "people/none"]) == {
        "people/alice": {"ally", "dr zoe a"}
    }
    assert store.alias_norms_for("default", []) == {}
    links = store.links_from("default", "people/alice")
    assert set(links) == {
        Link("people/alice", "companies/acme", "employer", "frontmatter"),
        Link("people/alice", "people/bob", "mentions", "mentions", "Bob"),
        Link("people/alice", "people/carol", "mentions", "markdown", "Carol"),
    }
    assert store.timeline(alice.id) == [  # date order, not text order
        TimelineEntry("people/alice", "2024-01-01", "Moved to Lyon"),
        TimelineEntry("people/alice", "2024-02-01", "Joined Acme", "as an engineer"),
    ]


def test_backlinks_respect_privacy_type_and_deletion(store: Store) -> None:
    put_page(store, "people/alice", ALICE)
    put_page(store, "notes/secret", PRIVATE)
    put_page(store, "notes/public", "# Public\n\nMet [[people/alice]] and [[people/bob]].\n")
    gone = put_page(store, "notes/gone", "# Gone\n\n[[people/bob]]\n")
    with store.transaction():
        store.mark_page_deleted(gone.id, ts(1))

    to_alice = store.links_to("default", "people/alice")
    assert [ln.from_slug for ln in to_alice] == ["notes/public", "notes/secret"]
    remote = store.links_to("default", "people/alice", include_private=False)
    assert [ln.from_slug for ln in remote] == ["notes/public"]
    assert store.links_to("default", "people/alice", exclude_type="mentions") == []
    assert len(store.links_to("default", "people/bob", limit=1)) == 1
    assert [ln.from_slug for ln in store.links_to("default", "people/bob")] == [
        "notes/public", "people/alice"]  # the deleted page's link is gone

    assert store.count_backlinks("default", "people/alice") == 2
    assert store.count_backlinks("default", "people/alice", include_private=False) == 1
    assert store.count_backlinks("default", "people/bob", exclude_type="mentions") == 0
    assert store.count_backlinks("default", "companies/acme") == 1


def test_list_pages_filters_compose_and_paginate(store: Store) -> None:
    put_page(store, "people/alice", ALICE, ts(1))
    put_page(store, "people/bob", "# Bob\n", ts(2))
    put_page(store, "notes/secret", PRIVATE, ts(3))
    put_page(store, "notes/plain", "# Plain\n", ts(4))

    def slugs(**kwargs: object) -> list[str]:
        return [p.slug for p in store.list_pages("default", **kwargs)]  # type: ignore[arg-type]

    assert slugs() == ["notes/plain", "notes/secret", "people/alice", "people/bob"]
    assert slugs(type="person") == ["people/alice", "people/bob"]  # bob's from his namespace
    assert slugs(type="notes") == ["notes/plain", "notes/secret"]
    assert slugs(prefix="people/") == ["people/alice", "people/bob"]
    assert slugs(updated_after=ts(2)) == ["notes/plain", "notes/secret"]
    assert slugs(include_private=False) == ["notes/plain", "people/alice", "people/bob"]
    assert slugs(limit=2) == ["notes/plain", "notes/secret"]
    assert slugs(after_slug="notes/secret", limit=2) == ["people/alice", "people/bob"]
    assert slugs(prefix="people/", include_private=False, after_slug="people/alice") == [
        "people/bob"]
    assert store.list_pages("other-source") == []


def test_pages_changed_since_is_a_keyset_oldest_first(store: Store) -> None:
    put_page(store, "notes/b", "# B\n", ts(1))
    put_page(store, "notes/a", "# A\n", ts(1))
    put_page(store, "notes/secret", PRIVATE, ts(2))
    put_page(store, "notes/c", "# C\n", ts(3))

    def changed(since: str, slug: str, private: bool = True, limit: int = 10) -> list[str]:
        pages = store.pages_changed_since("default", since, slug, include_private=private,
                                          limit=limit)
        return [p.slug for p in pages]

    assert changed(ts(0), "") == ["notes/a", "notes/b", "notes/secret", "notes/c"]
    assert changed(ts(1), "notes/a") == ["notes/b", "notes/secret", "notes/c"]
    assert changed(ts(1), "notes/a", private=False) == ["notes/b", "notes/c"]
    assert changed(ts(0), "", limit=1) == ["notes/a"]
    assert changed(ts(3), "notes/c") == []


def test_find_pages_by_alias_title_and_slug_tail(store: Store) -> None:
    alice = put_page(store, "people/alice", ALICE, ts(1))
    other = put_page(store, "archive/alice", "# Alice Example\n", ts(2))
    assert [p.id for p in store.find_pages_by_alias("default", "ally")] == [alice.id]
    assert [p.id for p in store.find_pages_by_alias("default", "dr zoe a")] == [alice.id]
    assert store.find_pages_by_alias("default", "nobody") == []
    # Newest first when several pages match.
    assert [p.id for p in store.find_pages_by_title("default", "alice example")] == [
        other.id, alice.id]
    assert [p.id for p in store.find_pages_by_slug_tail("default", "alice")] == [
        other.id, alice.id]
    with store.transaction():
        store.mark_page_deleted(other.id, ts(3))
    assert [p.id for p in store.find_pages_by_title("default", "alice example")] == [alice.id]
    assert [p.id for p in store.find_pages_by_slug_tail("default", "alice")] == [alice.id]
    assert store.find_pages_by_title("other-source", "alice example") == []


def test_sources_are_separate_namespaces(store: Store) -> None:
    put_page(store, "notes/a", "# In default\n")
    assert store.get_page("elsewhere", "notes/a") is None
    assert store.find_pages_by_slug_tail("elsewhere", "a") == []

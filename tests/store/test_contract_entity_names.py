"""Contract: entity_names lists the titles and aliases a transcript may mention."""

from __future__ import annotations

from brainkeep.core.ports.store import Store
from tests.store.contract import put_page, ts


def test_entity_names_lists_titles_and_aliases_of_live_world_entity_pages(store: Store) -> None:
    put_page(store, "people/alice", "---\ntitle: Alice Chen\naliases: [Ally]\n---\nx\n")
    put_page(store, "companies/acme", "---\ntitle: Acme Robotics\n---\nx\n")
    put_page(store, "todo", "# Todo\n")  # no namespace: type note, never an entity
    put_page(store, "transcripts/chatgpt/x", "---\ntitle: Chat\ntype: transcript\n---\nx\n")
    put_page(store, "people/secret", "---\ntitle: Hidden Person\nvisibility: private\n---\nx\n")
    put_page(store, "people/gone", "---\ntitle: Gone Person\n---\nx\n")
    gone = store.get_page("default", "people/gone")
    assert gone is not None
    with store.transaction():
        store.mark_page_deleted(gone.id, ts(5))

    names = store.entity_names("default", exclude_types=("note", "transcript"))

    assert sorted(names) == [
        ("companies/acme", "Acme Robotics", "acme robotics"),
        ("people/alice", "Alice Chen", "alice chen"),
        ("people/alice", "Alice Chen", "ally"),
    ]
    assert store.entity_names("other-source", exclude_types=()) == []
    everything = store.entity_names("default", exclude_types=())
    assert ("todo", "Todo", "todo") in everything

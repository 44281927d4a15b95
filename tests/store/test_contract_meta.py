"""Contract: lifecycle and meta (engine name, schema version, meta keys, counts, size)."""

from __future__ import annotations

from brainkeep.core.models import MemoryDraft
from brainkeep.core.ports.store import Store
from tests.store.conftest import Engine
from tests.store.contract import insert_memory, put_page, ts


def test_engine_name_matches_the_registry(engine: Engine, store: Store) -> None:
    assert store.engine_name == engine.name


def test_schema_version_is_migrated_and_stable(engine: Engine, store: Store) -> None:
    version = store.schema_version()
    assert version >= 1
    again = engine.open()  # opening a migrated brain migrates nothing
    assert again.schema_version() == version


def test_meta_keys_upsert(store: Store) -> None:
    assert store.get_meta("contract.key") is None
    with store.transaction():
        store.set_meta("contract.key", "v1")
        store.set_meta("contract.key", "v2")
    assert store.get_meta("contract.key") == "v2"
    assert store.get_meta("created_at") is not None  # seeded when the brain was made


def test_counts_track_rows(store: Store) -> None:
    before = store.counts()
    page = put_page(store, "notes/a", "# A\n\n[[notes/b]]\n\n## Timeline\n- 2024-01-01: x\n")
    put_page(store, "notes/gone", "# Gone\n")
    gone = store.get_page("default", "notes/gone")
    assert gone is not None
    with store.transaction():
        store.mark_page_deleted(gone.id, ts(1))
    memory = insert_memory(store, MemoryDraft(text="a fact"))
    with store.transaction():
        store.expire_memory(memory.id, ts(2), "test")
    insert_memory(store, MemoryDraft(text="another fact"))
    after = store.counts()
    assert after["pages"] - before["pages"] == 1
    assert after["pages_deleted"] - before["pages_deleted"] == 1
    assert after["links"] - before["links"] == 1
    assert after["timeline_entries"] - before["timeline_entries"] == 1
    assert after["chunks"] >= len(store.page_chunk_texts(page.id)) >= 1
    assert after["memories"] - before["memories"] == 2
    assert after["memories_active"] - before["memories_active"] == 1
    assert after["events"] - before["events"] == 4


def test_size_optimize_and_close(engine: Engine, store: Store) -> None:
    put_page(store, "notes/a", "# A\n")
    assert store.size_bytes() > 0
    store.optimize()  # must not disturb data or leave a transaction open
    assert not store.in_transaction()
    assert store.get_page("default", "notes/a") is not None
    store.close()
    reopened = engine.open()
    assert reopened.get_page("default", "notes/a") is not None

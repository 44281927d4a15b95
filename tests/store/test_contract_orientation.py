"""The orientation cache's tables (migration 0016): counts add up, reads follow the read scope."""

from __future__ import annotations

import threading

from brainkeep.core.memory.orientation_map import Observation, StoredEntry, StoredMap
from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.ports.store import Store
from brainkeep.core.scope import ReadScope
from tests.store.conftest import Engine
from tests.store.contract import NOW, insert_memory

ALICE = Observation("entity", "Alice Chen", "name")
PORT = Observation("constant", "port", "5432")
USERS = Observation("schema", "users", "id, email")


def _memory(store: Store, text: str, *, agent: str = "alice", scope: str = "public",
            org: str | None = None) -> Memory:
    return insert_memory(store, MemoryDraft(text=text, agent_id=agent, origin="grpc",
                                            scope=scope, org_id=org))


def _read(store: Store, ns: str, agent: str | None, org: str | None = None, per_kind: int = 10,
          *, trusted: bool = False) -> StoredMap:
    scope = ReadScope(org_id=org, reader=agent, trusted=trusted)
    return store.orientation_read(ns, source_id="default", scope=scope, now=NOW,
                                  per_kind=per_kind)


def _record(store: Store, org: str | None, ns: str,
            pairs: list[tuple[int, Observation]]) -> None:
    with store.transaction():
        store.orientation_record(org, ns, pairs, NOW)


def test_hits_and_frequencies_add_up_per_namespace(store: Store) -> None:
    a = _memory(store, "Alice Chen runs db on port 5432")
    b = _memory(store, "Alice Chen owns users")
    _record(store, None, "ops", [(a.id, ALICE), (a.id, PORT)])
    _record(store, None, "ops", [(a.id, ALICE), (b.id, ALICE), (b.id, USERS)])
    _record(store, None, "ops", [])
    got = _read(store, "ops", "alice")
    assert got.hit_count == 3
    assert set(got.entries) == {StoredEntry("entity", "Alice Chen", "name", 3),
                                StoredEntry("constant", "port", "5432", 1),
                                StoredEntry("schema", "users", "id, email", 1)}
    # per_kind bounds each kind; 0 reads the hit count alone.
    assert len(_read(store, "ops", "alice", per_kind=1).entries) == 3
    assert _read(store, "ops", "alice", per_kind=0).entries == ()
    # Another label, or the same label in another tenant, is another map.
    assert _read(store, "dev", "alice").hit_count == 0
    assert _read(store, "ops", "alice", "acme").hit_count == 0


def test_a_read_counts_only_rows_its_reader_may_see(store: Store) -> None:
    open_row = _memory(store, "Alice Chen is on call")
    private = _memory(store, "Alice Chen's pager pin is 4412", scope="private")
    _record(store, None, "ops", [(open_row.id, ALICE), (private.id, ALICE), (private.id, PORT)])
    owner = _read(store, "ops", "alice")
    other = _read(store, "ops", "bob")
    assert {(e.key, e.freq) for e in owner.entries} == {("Alice Chen", 2), ("port", 1)}
    assert [(e.key, e.freq) for e in other.entries] == [("Alice Chen", 1)]
    # An anonymous reader counts open rows only; the trusted local reader, every row.
    assert [(e.key, e.freq) for e in _read(store, "ops", None).entries] == [("Alice Chen", 1)]
    assert {(e.key, e.freq) for e in _read(store, "ops", None, trusted=True).entries} == {
        ("Alice Chen", 2), ("port", 1)}
    # A quarantined row counts for no remote reader, its owner included.
    with store.transaction():
        store.set_memory_quarantined(private.id, True, NOW)
    assert [(e.key, e.freq) for e in _read(store, "ops", "alice").entries] == [("Alice Chen", 1)]
    # A tenant's reader never counts another tenant's rows, whatever the label.
    assert _read(store, "ops", "alice", "acme").entries == ()


def test_purge_and_hard_delete_remove_a_memory_s_entries(store: Store) -> None:
    a = _memory(store, "Alice Chen")
    b = _memory(store, "port 5432")
    _record(store, None, "ops", [(a.id, ALICE), (b.id, PORT)])
    with store.transaction():
        assert store.orientation_purge([a.id]) == 1
        assert store.orientation_purge([]) == 0
    keys = [e.key for e in _read(store, "ops", "alice").entries]
    assert keys == ["port"]
    with store.transaction():
        store.hard_delete_memory(b.id)
    assert _read(store, "ops", "alice").entries == ()


def test_a_redaction_leaves_no_entry_quoting_the_text(store: Store) -> None:
    a = _memory(store, "Alice Chen")
    b = _memory(store, "Alice Chen on port 5432")
    _record(store, None, "ops", [(a.id, ALICE), (b.id, ALICE), (b.id, PORT)])
    with store.transaction():
        store.redact_memory(b.id, NOW, "[REDACTED]")
    got = _read(store, "ops", "alice", trusted=True)
    assert got.entries == (StoredEntry("entity", "Alice Chen", "name", 1),)
    with store.transaction():
        assert store.orientation_purge([b.id]) == 0  # nothing of it was left


def test_concurrent_writers_on_two_instances_lose_no_count(engine: Engine, store: Store) -> None:
    memory = _memory(store, "Alice Chen")
    second = engine.open()
    rounds = 20

    def hammer(target: Store) -> None:
        for _ in range(rounds):
            _record(target, None, "ops", [(memory.id, ALICE)])

    threads = [threading.Thread(target=hammer, args=(s,)) for s in (store, second, store)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = _read(second, "ops", "alice")
    assert got.hit_count == 3 * rounds
    assert got.entries == (StoredEntry("entity", "Alice Chen", "name", 3 * rounds),)

"""Contract: the hash-chained event log and the integrity scans over it."""

from __future__ import annotations

from brainkeep.core.audit import GENESIS, memory_hash, page_hash
from brainkeep.core.memory.models import ChainRow
from brainkeep.core.models import MemoryDraft, NewEvent
from brainkeep.core.ports.store import Store
from brainkeep.core.verify import verify_brain
from tests.store.contract import (
    NOW,
    chain_errors,
    insert_memory,
    memory_chain_errors,
    new_event,
    put_page,
    ts,
)


def test_append_event_assigns_seq_and_chains_hashes(store: Store) -> None:
    with store.transaction():
        first = store.append_event(new_event(1), ts(1))
        second = store.append_event(
            NewEvent("x.y", "thing", "t-2", {"nested": {"b": 2, "a": [1, "ü"]}},
                     source_id="default", actor="agent-7"),
            ts(2),
        )
    assert (first.seq, second.seq) == (1, 2)
    assert first.prev_hash == GENESIS
    assert second.prev_hash == first.hash != second.hash
    stored = list(store.iter_events())
    assert stored == [first, second]  # what append returned is what was stored
    assert stored[1].payload == {"nested": {"b": 2, "a": [1, "ü"]}}
    assert stored[1].actor == "agent-7" and stored[1].ts == ts(2)
    assert chain_errors(stored) == []


def test_iter_events_resumes_after_seq_across_batches(store: Store) -> None:
    with store.transaction():
        for n in range(1, 8):
            store.append_event(new_event(n), ts(n))
    assert [e.seq for e in store.iter_events(batch=3)] == list(range(1, 8))
    assert [e.seq for e in store.iter_events(after_seq=5, batch=1)] == [6, 7]
    assert list(store.iter_events(after_seq=7)) == []


def test_events_for_one_subject_in_chain_order(store: Store) -> None:
    with store.transaction():
        store.append_event(new_event(1, subject_type="page"), NOW)
        store.append_event(new_event(2, subject_type="page"), NOW)
        store.append_event(NewEvent("page.delete", "page", "1", {}), NOW)
        store.append_event(new_event(1, subject_type="memory"), NOW)
    found = store.events_for("page", "1")
    assert [(e.seq, e.kind) for e in found] == [(1, "test.event"), (3, "page.delete")]
    assert store.events_for("page", "404") == []


def test_recorded_hashes_take_each_subjects_newest_hashing_event(store: Store) -> None:
    with store.transaction():
        store.append_event(NewEvent("page.put", "page", "1", {"content_hash": "old"}), NOW)
        store.append_event(NewEvent("page.put", "page", "2", {"content_hash": "two"}), NOW)
        store.append_event(NewEvent("page.put", "page", "1", {"content_hash": "new"}), NOW)
        # An event without a content hash does not hide the last one that had it.
        store.append_event(NewEvent("page.touch", "page", "1", {}), NOW)
        store.append_event(NewEvent("memory.insert", "memory", "u", {"content_hash": "m"}), NOW)
    assert store.recorded_hashes("page") == {"1": "new", "2": "two"}
    assert store.recorded_hashes("memory") == {"u": "m"}
    assert store.recorded_hashes("nothing") == {}


def test_iter_page_contents_includes_deleted_pages(store: Store) -> None:
    live = put_page(store, "notes/live", "# Live\n\nbody\n")
    gone = put_page(store, "notes/gone", "# Gone\n\nbody\n")
    with store.transaction():
        store.mark_page_deleted(gone.id, ts(5))
    rows = sorted(store.iter_page_contents())
    assert rows == sorted([
        (str(live.id), "notes/live", live.content, page_hash(live.content)),
        (str(gone.id), "notes/gone", gone.content, page_hash(gone.content)),
    ])


def test_chain_scans_and_verify_brain(store: Store) -> None:
    first = insert_memory(store, MemoryDraft(text="Alice likes tea", agent_id="a1"), ts(3))
    second = insert_memory(store, MemoryDraft(text="Alice likes jazz", agent_id="a1"), ts(4))
    other = insert_memory(store, MemoryDraft(text="in a thread", agent_id="a1",
                                             thread_id="t1"), ts(5))
    put_page(store, "people/alice", "# Alice\n")
    rows = store.memory_chain_rows("a1", None)
    assert [r.uuid for r in rows] == [first.uuid, second.uuid, other.uuid]
    assert rows[0] == ChainRow(first.id, first.uuid, "a1", None, "Alice likes tea", ts(3),
                               memory_hash("Alice likes tea", "a1", ts(3)), None, None)
    assert memory_chain_errors(rows) == []  # the engine linked each chain
    assert rows[1].prev_hash == first.content_hash and rows[2].prev_hash is None
    assert [r.uuid for r in store.memory_chain_rows("a1", "t1")] == [other.uuid]
    assert store.memory_chain_rows("a1", None, created_before=ts(3)) == rows[:1]
    assert store.memory_chain_rows("nobody", None) == []
    assert sorted(store.logged_memory_inserts("a1", None)) == sorted(
        (m.uuid, m.content_hash) for m in (first, second, other))
    assert store.logged_memory_inserts(None, "t1") == [(other.uuid, other.content_hash)]
    assert store.hard_deleted_memories() == []  # no hard delete logged yet
    report = verify_brain(store)
    assert report.valid, report.first_broken
    assert (report.events_checked, report.pages_checked, report.memories_checked) == (4, 1, 3)

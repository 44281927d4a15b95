"""The read log, proved verify heads (migration 0014) and incremental verify scans."""

from __future__ import annotations

from brainkeep.core.integrity_rows import VerifiedCheckpoint
from brainkeep.core.memory.reads import MemoryRead
from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.ports.store import Store
from tests.store.contract import insert_memory, ts


def _read(agent: str, org: str | None, at: int, ids: tuple[int, ...] = (1, 2),
          thread: str | None = None) -> MemoryRead:
    return MemoryRead(f"2026-01-01T00:00:{at:02d}Z", "default", org, agent, thread, "grpc",
                      "hybrid", ids)


def test_reads_are_kept_per_tenant_in_order(store: Store) -> None:
    with store.transaction():
        store.append_reads([_read("a", None, 1), _read("b", "acme", 2, ()),
                            _read("a", "acme", 3, (7,), thread="t"), _read("b", None, 4)])
    assert store.counts().get("events", 0) == 0  # reads never touch the chain
    mine = list(store.iter_reads(None, None, None))
    assert [(r.agent_id, r.ts[-3:-1]) for r in mine] == [("a", "01"), ("b", "04")]
    assert mine[0].memory_ids == (1, 2) and mine[0].id is not None
    acme = list(store.iter_reads("acme", None, None))
    assert [(r.agent_id, r.memory_ids) for r in acme] == [("b", ()), ("a", (7,))]
    assert [r.agent_id for r in store.iter_reads("acme", "a", None)] == ["a"]
    assert [r.thread_id for r in store.iter_reads("acme", None, "t")] == ["t"]
    assert list(store.iter_reads("other", None, None)) == []


def test_verified_checkpoints_newest_first_and_forgotten(store: Store) -> None:
    with store.transaction():
        store.record_verified_checkpoint(VerifiedCheckpoint(3, "a" * 64, "t1", "full", 0))
        store.record_verified_checkpoint(VerifiedCheckpoint(
            9, "b" * 64, "t2", "incremental", 3, "sha256:x", "c2ln"))
    newest = store.verified_checkpoints()
    assert [(c.seq, c.mode, c.from_seq) for c in newest] == [(9, "incremental", 3), (3, "full", 0)]
    assert (newest[0].key_fingerprint, newest[0].signature) == ("sha256:x", "c2ln")
    with store.transaction():
        assert store.forget_verified_checkpoints() == 2
    assert store.verified_checkpoints() == []


def test_chain_states_near_give_rows_successors_and_predecessors(store: Store) -> None:
    def note(text: str, agent: str, thread: str | None, at: int) -> Memory:
        draft = MemoryDraft(text=text, agent_id=agent, origin="grpc", thread_id=thread)
        return insert_memory(store, draft, ts(at))

    a1, a2, a3 = (note(f"a{i}", "alice", None, i) for i in range(3))
    b1 = note("b1", "bob", "t", 4)
    b2 = note("b2", "bob", "t", 5)
    got = list(store.iter_chain_states_near([("alice", None, a1.id), ("bob", "t", b2.id)]))
    # a1 and its successor a2; b2 (the newest of its chain: no successor).
    assert [(s.memory.uuid, prev) for s, prev in got] == [
        (a1.uuid, None), (a2.uuid, a1.content_hash), (b2.uuid, b1.content_hash)]
    assert got[0][0].recorded_content == a1.content_hash
    # An anchor whose row is gone still names its successor (a hard delete).
    gone = list(store.iter_chain_states_near([("alice", None, a2.id + 1000)]))
    assert gone == []
    after = list(store.iter_chain_states_near([("alice", None, a1.id - 1)]))
    assert [s.memory.uuid for s, _ in after] == [a1.uuid]
    assert a3.id > a2.id
    assert list(store.iter_chain_states_near([])) == []

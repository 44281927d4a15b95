"""Group commit (shared write transactions) and the buffered recall read log."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable

import pytest

from brainkeep.brain import Brain
from brainkeep.core.memory.group_commit import GroupCommit
from brainkeep.core.memory.mnemo import MnemoService
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.models import NewEvent


def _event(brain: Brain, name: str) -> None:
    brain.store.append_event(NewEvent(kind="test", subject_type="test", subject_id=name,
                                      payload={}), brain.clock.now_ts())


def _count(brain: Brain) -> int:
    """Events as another connection sees them (committed only)."""
    with sqlite3.connect(brain.settings.db_path) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM events WHERE kind = 'test'").fetchone()[0])


def test_a_job_commits_and_returns(brain: Brain) -> None:
    writer = GroupCommit(brain.store)
    assert writer.run(lambda: _event(brain, "one") or 42) == 42
    assert _count(brain) == 1


def test_concurrent_jobs_share_commits_and_all_land(brain: Brain) -> None:
    writer = GroupCommit(brain.store)
    batches: list[int] = []
    original = writer._commit

    def counting(batch):  # observe batch sizes without changing behaviour
        batches.append(len(batch))
        original(batch)

    writer._commit = counting  # type: ignore[method-assign]

    def worker(index: int) -> None:
        for j in range(40):
            writer.run(lambda i=index, j=j: _event(brain, f"{i}-{j}"))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _count(brain) == 320
    assert sum(batches) == 320
    assert len(batches) < 320  # some commits carried several writes


def test_a_failing_job_only_fails_its_caller(brain: Brain) -> None:
    writer = GroupCommit(brain.store)
    release = threading.Event()
    results: dict[str, object] = {}

    def slow_leader() -> None:
        release.wait(5)
        _event(brain, "leader")

    def boom() -> None:
        _event(brain, "doomed")
        raise ValueError("job failed")

    def call(name: str, job) -> None:
        try:
            results[name] = writer.run(job)
        except ValueError as exc:
            results[name] = exc

    leader = threading.Thread(target=call, args=("leader", slow_leader))
    leader.start()
    time.sleep(0.05)  # the leader now holds the write lock; the next two queue up together
    others = [threading.Thread(target=call, args=("bad", boom)),
              threading.Thread(target=call, args=("good", lambda: _event(brain, "good")))]
    for t in others:
        t.start()
    deadline = time.monotonic() + 2  # on a loaded machine the leader may batch all three
    while len(writer._queue) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    release.set()
    for t in [leader, *others]:
        t.join()
    assert isinstance(results["bad"], ValueError)
    assert results["good"] is None and results["leader"] is None
    with sqlite3.connect(brain.settings.db_path) as conn:
        names = {r[0] for r in conn.execute("SELECT subject_id FROM events WHERE kind = 'test'")}
    assert names == {"leader", "good"}  # the failed job's write was rolled back alone


def test_a_lone_failing_job_writes_nothing_and_the_next_commits(brain: Brain) -> None:
    writer = GroupCommit(brain.store)

    def boom() -> None:
        _event(brain, "doomed")
        raise ValueError("job failed")

    with pytest.raises(ValueError):
        writer.run(boom)
    assert _count(brain) == 0
    assert not brain.store.in_transaction()
    writer.run(lambda: _event(brain, "after"))
    assert _count(brain) == 1


def test_a_lone_job_commits_without_a_savepoint(brain: Brain) -> None:
    # A savepoint makes SQLite keep a statement journal of every page the job
    # touches: it was a fifth of a lone remember's CPU (bench/write_verbs.py).
    statements: list[str] = []
    conn = brain.store.db.conn
    conn.set_trace_callback(statements.append)
    try:
        GroupCommit(brain.store).run(lambda: _event(brain, "alone"))
    finally:
        conn.set_trace_callback(None)
    assert "COMMIT" in statements
    assert not [s for s in statements if s.startswith(("SAVEPOINT", "RELEASE"))]


def test_read_log_buffers_then_flushes(mnemo: MnemoService, brain: Brain) -> None:
    memory = mnemo.remember(RememberInput(content="read me", agent_id="a", scope="public"))
    reads = mnemo.ctx.reads
    assert reads.record("b", "lexical", [memory.id]) == {memory.id: 1}
    assert reads.record("b", "hybrid", [memory.id]) == {memory.id: 2}
    assert reads.record("c", "exact", []) == {}
    assert mnemo.flush_reads() == 3
    assert brain.store.get_memory_by_uuid(memory.uuid).access_count == 2
    reads = list(brain.store.iter_reads(None, None, None))
    assert [(r.agent_id, r.strategy, r.memory_ids) for r in reads] == [
        ("b", "lexical", (memory.id,)), ("b", "hybrid", (memory.id,)), ("c", "exact", ())]
    assert brain.store.events_for("reads", "recall-batch") == []
    assert mnemo.flush_reads() == 0


@pytest.mark.timeout(10)
def test_read_log_flushes_in_the_background_and_goes_idle(mnemo: MnemoService,
                                                          brain: Brain) -> None:
    memory = mnemo.remember(RememberInput(content="background", agent_id="a"))
    mnemo.ctx.reads.record("a", "lexical", [memory.id])

    def eventually(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    assert eventually(lambda: brain.store.get_memory_by_uuid(memory.uuid).access_count == 1)
    assert eventually(lambda: mnemo.ctx.reads._thread is None)  # the flusher goes idle


def test_a_job_may_call_transact_again(brain: Brain) -> None:
    writer = GroupCommit(brain.store)
    assert writer.run(lambda: writer.run(lambda: _event(brain, "nested") or "inner")) == "inner"
    assert _count(brain) == 1


def test_both_protocols_write_through_the_brains_one_group_commit(brain: Brain) -> None:
    from brainkeep.core.context import LOCAL

    assert brain.facts.writer is brain.writer
    assert brain.mnemo.ctx.writer is brain.writer
    jobs: list[int] = []
    original = brain.writer._commit

    def counting(batch):  # observe the jobs without changing behaviour
        jobs.append(len(batch))
        original(batch)

    brain.writer._commit = counting  # type: ignore[method-assign]
    fact = brain.facts.remember("Alice prefers written updates", "a test", LOCAL).memory
    brain.facts.forget(str(fact.id), LOCAL)
    brain.mnemo.remember(RememberInput(content="a memory", agent_id="agent-a", thread_id="t1"))
    assert jobs == [1, 1, 1]


def test_a_caller_inside_its_own_transaction_commits_with_it(brain: Brain) -> None:
    writer = GroupCommit(brain.store)
    with pytest.raises(RuntimeError):
        with brain.store.transaction():
            writer.run(lambda: _event(brain, "inside"))
            # Not committed apart from the caller's transaction (a savepoint of it)...
            assert _count(brain) == 0
            raise RuntimeError("the caller's transaction fails")
    # ...so it rolls back with it.
    assert _count(brain) == 0
    with brain.store.transaction():
        writer.run(lambda: _event(brain, "kept"))
    assert _count(brain) == 1


def test_a_caller_inside_its_own_transaction_waits_for_no_other_leader(brain: Brain) -> None:
    writer = GroupCommit(brain.store)
    done = threading.Event()

    def inside() -> None:
        with brain.store.transaction():
            writer.run(lambda: _event(brain, "inside"))
            done.set()

    # Another caller leads a batch: a job queued behind it would run on that
    # thread, outside this caller's open transaction (and wait on its lock).
    with writer._leader:
        thread = threading.Thread(target=inside)
        thread.start()
        assert done.wait(5)
    thread.join(5)
    assert _count(brain) == 1

"""Contract: concurrent writers on one brain lose nothing and keep every chain valid.

Writers are separate store instances (own connections), first as threads of
this process, then as real processes. Each write is one transaction holding
an event plus a memory (and its ``memory.insert`` event), like a service
write. All writers also append to one shared (agent, thread) memory chain:
the engine must link it without forks even when writers race.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections import Counter

from brainkeep.core.models import MemoryDraft
from brainkeep.core.ports.store import Store
from brainkeep.core.verify import verify_brain
from tests.store.conftest import Engine
from tests.store.contract import chain_errors, insert_memory, memory_chain_errors, new_event, ts
from tests.store.engines import open_engine

WRITES = 25
SHARED_AGENT = "shared-agent"
# A pause between a writer's transactions lets the others in, so writes
# interleave instead of running as one block per writer (which would prove
# nothing about racing writers).
PAUSE_S = 0.004


def write_batch(store: Store, writer: str, count: int) -> None:
    """``count`` transactions of (event, memory on the writer's chain, memory on the shared one)."""
    for n in range(count):
        now = ts(n)
        with store.transaction():
            store.append_event(new_event(n, subject_type=writer), now)
            insert_memory(store, MemoryDraft(text=f"{writer} own {n}", agent_id=writer), now)
            insert_memory(store, MemoryDraft(text=f"{writer} shared {n}", agent_id=SHARED_AGENT),
                          now)
        time.sleep(PAUSE_S)


def _process_writer(engine_name: str, target: str, writer: str, count: int,
                    barrier: threading.Barrier) -> None:
    store = open_engine(engine_name, target)
    try:
        barrier.wait(timeout=60)  # start together, so the writes really interleave
        write_batch(store, writer, count)
    finally:
        store.close()


def check_no_lost_writes(store: Store, writers: list[str], count: int) -> None:
    events = list(store.iter_events())
    # 1 test event + 2 memory.insert events per transaction.
    assert len(events) == len(writers) * count * 3
    assert [e.seq for e in events] == list(range(1, len(events) + 1))  # unique, gap-free
    assert chain_errors(events) == []
    written = Counter((e.subject_type, e.subject_id) for e in events if e.kind == "test.event")
    assert written == Counter({(w, str(n)): 1 for w in writers for n in range(count)})

    for writer in writers:
        own = store.memory_chain_rows(writer, None)
        assert sorted(r.text for r in own) == sorted(f"{writer} own {n}" for n in range(count))
        assert memory_chain_errors(own) == []
    shared = store.memory_chain_rows(SHARED_AGENT, None)
    assert len(shared) == len(writers) * count
    assert memory_chain_errors(shared) == []  # one linear chain: no two rows share a parent
    assert len({r.prev_hash for r in shared}) == len(shared)

    report = verify_brain(store)
    assert report.valid, report.first_broken
    assert report.memories_checked == len(writers) * count * 2


def writer_switches(store: Store) -> int:
    """How often the writer changes along the log (writers - 1 when nothing interleaved)."""
    order = [e.subject_type for e in store.iter_events() if e.kind == "test.event"]
    return sum(1 for a, b in zip(order, order[1:], strict=False) if a != b)


def test_threads_with_separate_instances(engine: Engine, store: Store) -> None:
    writers = [f"thread-{i}" for i in range(4)]
    instances = [engine.open() for _ in writers]
    barrier = threading.Barrier(len(writers))
    errors: list[BaseException] = []

    def run(instance: Store, writer: str) -> None:
        try:
            barrier.wait(timeout=30)
            write_batch(instance, writer, WRITES)
        except BaseException as exc:  # surfaced below: a thread cannot fail the test itself
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(inst, w)) for inst, w in
               zip(instances, writers, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    check_no_lost_writes(store, writers, WRITES)
    assert writer_switches(store) > len(writers) - 1, "the writers never interleaved"


def test_threads_sharing_one_instance(store: Store) -> None:
    # Servers answer on worker threads over one store: each thread must get
    # its own transaction, not join another thread's.
    writers = [f"worker-{i}" for i in range(3)]
    errors: list[BaseException] = []

    def run(writer: str) -> None:
        try:
            write_batch(store, writer, WRITES)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    check_no_lost_writes(store, writers, WRITES)


def test_real_processes(engine: Engine, store: Store) -> None:
    # `spawn`: a fresh interpreter per writer, as separate brainkeep processes
    # would be (fork would copy this process's open connections).
    context = multiprocessing.get_context("spawn")
    writers = [f"proc-{i}" for i in range(3)]
    barrier = context.Barrier(len(writers))
    procs = [
        context.Process(target=_process_writer,
                        args=(engine.name, engine.target, w, WRITES, barrier))
        for w in writers
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=180)
    assert [p.exitcode for p in procs] == [0] * len(writers)
    check_no_lost_writes(store, writers, WRITES)
    assert writer_switches(store) > len(writers) - 1, "the writers never interleaved"

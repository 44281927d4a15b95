"""The SQLite engine: pragmas, transactions, savepoints, error translation."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from brainkeep.core.models import NewEvent
from brainkeep.errors import Busy, StoreError
from brainkeep.store import SQLiteStore
from brainkeep.store.sqlite.engine import BUSY_TIMEOUT_MS

NOW = "2025-01-01T00:00:00.000000Z"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path / "brain.db")
    try:
        yield opened
    finally:
        opened.close()


def event(n: int) -> NewEvent:
    return NewEvent(kind="test.event", subject_type="test", subject_id=str(n), payload={"n": n})


def test_connection_pragmas(store: SQLiteStore) -> None:
    db = store.db
    assert db.scalar("PRAGMA journal_mode") == "wal"
    assert db.scalar("PRAGMA foreign_keys") == 1
    assert db.scalar("PRAGMA busy_timeout") == BUSY_TIMEOUT_MS
    assert db.scalar("PRAGMA synchronous") == 2  # FULL: a returned write is on disk


def test_transaction_commits_and_rolls_back(store: SQLiteStore) -> None:
    with store.transaction():
        store.append_event(event(1), NOW)
    with pytest.raises(RuntimeError), store.transaction():
        store.append_event(event(2), NOW)
        raise RuntimeError("boom")
    assert [e.subject_id for e in store.iter_events()] == ["1"]


def test_nested_transaction_is_a_savepoint(store: SQLiteStore) -> None:
    with store.transaction():
        store.append_event(event(1), NOW)
        with pytest.raises(ValueError), store.transaction():
            store.append_event(event(2), NOW)
            raise ValueError("inner fails alone")
        store.append_event(event(3), NOW)
    events = list(store.iter_events())
    assert [e.subject_id for e in events] == ["1", "3"]
    assert [e.seq for e in events] == [1, 2]  # the chain has no hole


def test_other_connections_see_only_committed_writes(store: SQLiteStore, tmp_path: Path) -> None:
    other = sqlite3.connect(tmp_path / "brain.db")
    try:
        with store.transaction():
            store.append_event(event(1), NOW)
            assert other.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
        assert other.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 1
    finally:
        other.close()


def test_each_thread_gets_its_own_connection(store: SQLiteStore) -> None:
    seen: list[int] = []

    def work(n: int) -> None:
        with store.transaction():
            store.append_event(event(n), NOW)
        seen.append(id(store.db.conn))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 4
    assert sorted(int(e.subject_id) for e in store.iter_events()) == [0, 1, 2, 3]


def test_sequential_sessions_on_many_threads_share_one_connection(store: SQLiteStore) -> None:
    # A connection drops its page cache when it finds another's commit: calls
    # handed round a pool of worker threads must not each bring their own.
    seen: list[int] = []

    def call(n: int) -> None:
        with store.session():
            with store.transaction():
                store.append_event(event(n), NOW)
            seen.append(id(store.db.conn))

    for n in range(6):
        thread = threading.Thread(target=call, args=(n,))
        thread.start()
        thread.join()
    assert len(set(seen)) == 1
    assert sorted(int(e.subject_id) for e in store.iter_events()) == list(range(6))


def test_concurrent_sessions_get_their_own_connections(store: SQLiteStore) -> None:
    inside = threading.Barrier(3)
    seen: list[int] = []

    def call() -> None:
        with store.session():
            seen.append(id(store.db.conn))
            inside.wait(5)

    threads = [threading.Thread(target=call) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 3


def test_a_session_inside_an_open_transaction_keeps_its_connection(store: SQLiteStore) -> None:
    own = store.db.conn
    with store.transaction():
        store.append_event(event(1), NOW)
        with store.session():
            assert store.db.conn is own  # the write and what follows stay one transaction
            store.append_event(event(2), NOW)
    with store.session():
        lent = store.db.conn
        with store.session():
            assert store.db.conn is lent
    assert lent is not own and store.db.conn is own
    assert [e.subject_id for e in store.iter_events()] == ["1", "2"]


def test_driver_errors_become_store_errors(store: SQLiteStore) -> None:
    with pytest.raises(StoreError) as info:
        store.db.execute("SELECT * FROM no_such_table")
    assert isinstance(info.value.__cause__, sqlite3.OperationalError)
    assert info.value.code == "internal"


def test_locked_database_is_a_clear_busy_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from brainkeep.store.sqlite import engine

    path = tmp_path / "brain.db"
    SQLiteStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    monkeypatch.setattr(engine, "BUSY_TIMEOUT_MS", 50)  # the real wait is 30 s
    store = SQLiteStore(path)
    try:
        # Busy (retryable `unavailable`), not an internal StoreError: tests/store/test_busy.py.
        with pytest.raises(Busy, match="locked"), store.transaction():
            pass
    finally:
        store.close()
        holder.execute("ROLLBACK")
        holder.close()


def test_meta_and_size(store: SQLiteStore) -> None:
    with store.transaction():
        store.set_meta("k", "v1")
        store.set_meta("k", "v2")
    assert store.get_meta("k") == "v2"
    assert store.get_meta("missing") is None
    assert store.size_bytes() > 0

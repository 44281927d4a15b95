"""PostgreSQL connections, transactions and error translation (psycopg 3 + a pool).

How a repository method talks to the database (the same call shape as
``SQLiteEngine``, another placeholder style):

- ``db.execute(sql, params)``, ``db.one``, ``db.all``, ``db.scalar``, with
  psycopg placeholders: ``%s`` (a sequence) or ``%(name)s`` (a dict). A
  literal ``%`` in SQL that has parameters is written ``%%``.
- Rows are ``Row``: ``row["col"]`` like ``sqlite3.Row`` and ``row[0]`` by
  position. ``execute`` returns a ``Result`` (already fetched) with
  ``fetchone``/``fetchall``/iteration and ``rowcount``. There is no
  ``lastrowid``: write ``INSERT ... RETURNING id`` and read it with ``scalar``.
- ``with db.transaction():`` is the one transaction. The outermost block
  checks one connection out of the pool for this thread, runs ``BEGIN``
  (READ COMMITTED) and takes the brain's write lock; nested blocks are
  savepoints; store methods never commit. Statements outside a
  transaction run in autocommit on a connection borrowed per statement,
  or, inside ``with db.session():``, on one connection held for the block.
- ``with db.read_only(settings):`` runs the block's reads in one read-only
  snapshot with ``SET LOCAL`` settings that end with it (a savepoint inside
  an open transaction): e.g. pgvector's HNSW knobs for one search.
- ``db.stream(sql, params)`` iterates a large result through a server-side
  cursor, for scans that must stay flat in memory (verify, export).

Writes are serialized, as on SQLite: every outermost transaction takes
``pg_advisory_xact_lock(WRITE_LOCK_KEY)`` right after ``BEGIN`` (SQLite's
``BEGIN IMMEDIATE``), so the domain's check-then-write sequences (dedup,
"does this page exist", the event and memory chain tails) cannot interleave
across processes. READ COMMITTED matters: each statement after the lock sees
every transaction committed before the lock was granted.

Errors are translated once, in ``translate``: connection failures become
``Unavailable`` naming host and port (never the password), lock timeouts,
serialization failures and deadlocks become ``Busy`` (retryable), the rest
``StoreError``. ``transaction()`` itself never re-runs its block: a ``with``
body cannot be replayed, and the domain runs Python between statements (it
reads, decides, then writes), so replaying only the SQL would be wrong.
Callers that can re-run a whole unit of work use ``run_transaction(fn)``,
which retries conflicts a bounded number of times and then raises ``Busy``.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

import psycopg

from brainkeep.errors import Busy, StoreError
from brainkeep.store.postgres.connections import Connections, ThreadState, configure_session
from brainkeep.store.postgres.conninfo import describe_target, scrub
from brainkeep.store.postgres.driver import Result, Row, is_conflict, row_factory, translate
from brainkeep.store.postgres.migrator import MigrationReport, run_migrations, schema_version

log = logging.getLogger("brainkeep.store.postgres")

__all__ = ["CONNECT_TIMEOUT_S", "LOCK_TIMEOUT_MS", "WRITE_LOCK_KEY", "PostgresEngine", "Result",
           "Row"]

T = TypeVar("T")
Params = Sequence[Any] | dict[str, Any]
Connection = psycopg.Connection[Any]

# Advisory lock keys are per database, so brains on one server never share
# them. Fixed 64-bit values: the ASCII of a short name.
WRITE_LOCK_KEY = 0x6272_6B5F_7772_6974  # "brk_writ": every write transaction
# How long a transaction waits for the write lock (or any row lock) before
# `Busy` (SQLite's `store.busy_timeout_ms`).
LOCK_TIMEOUT_MS = 30_000
CONNECT_TIMEOUT_S = 3.0
# Server-side cursor names must be unique per connection (streams may nest).
_stream_ids = itertools.count(1)


class PostgresEngine:
    """A connection pool, the one ``transaction()`` context manager, and migrations."""

    # The driver's parameter mark (statements shared by both engines use it).
    placeholder = "%s"

    def __init__(
        self,
        url: str,
        *,
        pool_min: int = 1,
        pool_max: int = 10,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        lock_timeout_ms: int = LOCK_TIMEOUT_MS,
        retry_attempts: int = 3,
        application_name: str = "brainkeep",
    ) -> None:
        """Connect to (and migrate) the brain database at ``url``.

        Args:
            url: A ``postgresql://`` URL or key/value conninfo; a password in
                it is used, never printed.
            pool_min: Connections the pool keeps open.
            pool_max: Most connections the pool opens (one per concurrent
                transaction or statement of this process).
            connect_timeout_s: How long a request waits for a connection
                before ``Unavailable`` (short: fail fast while the server is down).
            lock_timeout_ms: How long a statement waits for a lock (the write
                lock included) before ``Busy``.
            retry_attempts: How often ``run_transaction`` runs a unit of work
                that keeps conflicting before raising ``Busy``.
            application_name: Shown in ``pg_stat_activity``.

        Raises:
            Unavailable: The server cannot be reached.
            StoreError: A migration failed.
        """
        self.url = url
        self.target = describe_target(url)
        self.connect_timeout_s = connect_timeout_s
        self.lock_timeout_ms = lock_timeout_ms
        self.retry_attempts = max(1, retry_attempts)
        self._kwargs: dict[str, Any] = {
            "autocommit": True,  # BEGIN/COMMIT are ours, as on SQLite
            "row_factory": row_factory,
            "connect_timeout": max(1, round(connect_timeout_s)),
            "application_name": application_name,
        }
        self.migration_report = self.migrate()
        self.vector_available = self.scalar_direct(
            "SELECT 1 FROM pg_extension WHERE extname = 'vector'") is not None
        self._conns = Connections(url, self._kwargs, pool_min=pool_min, pool_max=pool_max,
                                  timeout_s=connect_timeout_s, configure=self._configure,
                                  name=f"brainkeep {self.target}")

    # -- connections -------------------------------------------------------

    def _connect(self) -> Connection:
        try:
            return psycopg.connect(self.url, **self._kwargs)
        except psycopg.Error as exc:
            raise translate(exc, self.url) from exc

    def _configure(self, conn: Connection) -> None:
        configure_session(conn, lock_timeout_ms=self.lock_timeout_ms,
                          vector=self.vector_available)

    @property
    def _local(self) -> ThreadState:
        return self._conns.local

    def _borrow(self) -> AbstractContextManager[Connection]:
        return self._conns.borrow()

    def session(self) -> AbstractContextManager[None]:
        """``with db.session():`` this thread's statements share one pooled connection.

        For a request running several reads (a search: term counts, the
        match, the rows): one pool checkout instead of one per statement.
        Re-entrant; inside a transaction it changes nothing. Statements
        stay autocommit (each sees the latest commits); a ``transaction()``
        opened inside uses the held connection.
        """
        return self._conns.session()

    def side_session(self) -> AbstractContextManager[bool]:
        """``session()`` if the pool can give a connection at once; yields whether it did."""
        return self._conns.side_session()

    def session_memo(self) -> dict[str, Any] | None:
        """A dict this ``session()``'s reads share, or None outside a session or in a transaction.

        For change markers a request reads several times (vector counts):
        one request sees them as of its first read. Emptied when a
        transaction ends, so a request's own write is never hidden from it.
        """
        local = self._local
        return None if local.depth > 0 else local.memo

    @contextmanager
    def read_only(self, settings: Mapping[str, int | str] | None = None) -> Iterator[None]:
        """The block's statements in one read-only snapshot, ``settings`` SET LOCAL.

        ``settings`` names and values must be constants of the caller (they
        are spliced into SQL). Inside an open transaction the block runs
        in a savepoint rolled back afterwards, so the settings end with it
        either way. A ``transaction()`` inside the block raises.
        """
        setup = "".join(f"; SET LOCAL {name} = {value}" for name, value in
                        (settings or {}).items())
        local = self._local
        inside = self.in_transaction() or local.reading > 0
        begin, undo = (("SAVEPOINT bk_read", "ROLLBACK TO SAVEPOINT bk_read; "
                        "RELEASE SAVEPOINT bk_read") if inside else ("BEGIN READ ONLY", "ROLLBACK"))
        with self.session(), self._borrow() as conn:
            self._run(conn, begin + setup, ())
            local.reading += 1
            try:
                yield
            finally:
                local.reading -= 1
                try:
                    conn.execute(undo)  # a read: nothing to commit, and the settings go
                except psycopg.Error as exc:
                    raise translate(exc, self.url) from exc

    def scalar_direct(self, sql: str) -> Any:
        """One value over a fresh connection outside the pool (startup checks)."""
        with self._connect() as conn:
            row = conn.execute(sql).fetchone()
        return None if row is None else row[0]

    def check(self) -> None:
        """Validate pooled connections now, dropping dead ones (``doctor``, health)."""
        self._conns.check()

    def pool_stats(self) -> dict[str, int]:
        """Pool size and usage counters (``doctor``)."""
        return self._conns.stats()

    def close(self) -> None:
        """Close the pool and every connection it opened."""
        self._conns.close()

    # -- statements --------------------------------------------------------

    def _run(self, conn: Connection, sql: str, params: Params) -> Result:
        try:
            cur = conn.execute(sql, params or None)
            rows: list[Row] = cur.fetchall() if cur.description else []
            return Result(rows, cur.rowcount)
        except psycopg.Error as exc:
            raise translate(exc, self.url) from exc

    def execute(self, sql: str, params: Params = ()) -> Result:
        with self._borrow() as conn:
            return self._run(conn, sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        with self._borrow() as conn:
            try:
                with conn.cursor() as cur:
                    cur.executemany(sql, rows)
            except psycopg.Error as exc:
                raise translate(exc, self.url) from exc

    def one(self, sql: str, params: Params = ()) -> Row | None:
        return self.execute(sql, params).fetchone()

    def all(self, sql: str, params: Params = ()) -> list[Row]:
        return self.execute(sql, params).fetchall()

    def scalar(self, sql: str, params: Params = ()) -> Any:
        row = self.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def stream(self, sql: str, params: Params = (), *, batch: int = 2000) -> Iterator[Row]:
        """Rows of ``sql`` through a server-side cursor (flat memory on any table size).

        Inside a transaction it reads that transaction's snapshot; outside,
        it opens a read transaction of its own for as long as it is iterated.
        """
        with self._conns.streaming(self.in_transaction()) as conn:
            try:
                with conn.cursor(name=f"bk_stream_{next(_stream_ids)}") as cur:
                    cur.itersize = batch
                    cur.execute(sql, params or None)
                    yield from cur
            except psycopg.Error as exc:
                raise translate(exc, self.url) from exc

    # -- transactions ------------------------------------------------------

    def in_transaction(self) -> bool:
        return self._local.depth > 0

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run the block atomically under the write lock; nested blocks are savepoints.

        Raises:
            Busy: The write lock (or a row lock) was not granted within
                ``lock_timeout_ms``, or the transaction hit a deadlock.
            Unavailable: The connection failed (the outcome of a failed
                COMMIT is unknown: the caller must not assume either way).
        """
        local = self._local
        depth = local.depth
        if depth > 0:
            yield from self._savepoint(depth)
            return
        if local.reading:
            raise StoreError("A write transaction cannot open inside read_only().")
        held = local.conn  # a session's connection (or None)
        with self._borrow() as conn:
            try:
                self._run(conn, "BEGIN ISOLATION LEVEL READ COMMITTED", ())
                local.conn, local.depth = conn, 1
                self._run(conn, "SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK_KEY,))
                try:
                    yield
                except BaseException:
                    self._rollback(conn)
                    raise
                if conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
                    # PostgreSQL answers COMMIT of an aborted transaction with a
                    # silent ROLLBACK: a block that swallowed a failed statement
                    # must not look committed.
                    raise StoreError("The transaction was aborted by a failed statement.",
                                     detail="a statement failed and its error was caught "
                                     "inside transaction(); nothing was written")
                self._run(conn, "COMMIT", ())
            finally:
                if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    self._rollback(conn)
                local.conn, local.depth = held, 0
                if local.memo:
                    local.memo.clear()  # what the session read before may have changed

    def _savepoint(self, depth: int) -> Iterator[None]:
        local = self._local
        conn = local.conn
        assert conn is not None
        self._run(conn, f"SAVEPOINT sp{depth}", ())
        local.depth = depth + 1
        try:
            yield
        except BaseException:
            local.depth = depth
            try:
                conn.execute(f"ROLLBACK TO SAVEPOINT sp{depth}")
                conn.execute(f"RELEASE SAVEPOINT sp{depth}")
            except psycopg.Error as exc:  # the block's own error is what the caller must see
                log.warning("rollback to a savepoint failed: %s", scrub(str(exc), self.url))
            raise
        local.depth = depth
        self._run(conn, f"RELEASE SAVEPOINT sp{depth}", ())

    def _rollback(self, conn: Connection) -> None:
        try:
            conn.execute("ROLLBACK")
        except psycopg.Error as exc:  # a dead connection rolled back by itself
            log.warning("rollback after a failed transaction failed: %s",
                        scrub(str(exc), self.url))

    @contextmanager
    def writing(self) -> Iterator[None]:
        """The caller's transaction if one is open, else a new one.

        For engine-owned invariants (event ``seq``, chain tails) that need
        the write lock even when a caller forgot ``transaction()``: in
        autocommit a transaction-scoped lock would end with its statement.
        """
        if self.in_transaction():
            yield
            return
        with self.transaction():
            yield

    def run_transaction(self, body: Callable[[], T]) -> T:
        """Run ``body`` in a transaction, re-running it on a conflict (bounded).

        ``body`` must be re-runnable: it re-reads what it decides on and has
        no effects outside the database. Serialization failures and
        deadlocks are retried up to ``retry_attempts`` times with a short
        backoff; then (and for lock timeouts at once) ``Busy`` is raised.
        Inside an open transaction it just runs ``body`` (the outer block
        owns the retry).
        """
        if self.in_transaction():
            return body()
        for attempt in range(1, self.retry_attempts + 1):
            try:
                with self.transaction():
                    return body()
            except Busy as exc:
                if not is_conflict(exc) or attempt == self.retry_attempts:
                    raise
                time.sleep(0.005 * 2**attempt)
        raise AssertionError("unreachable")  # the loop returns or raises

    # -- migrations --------------------------------------------------------

    def migrate(self) -> MigrationReport:
        """Apply pending migrations (under a session advisory lock); see ``migrator``."""
        conn = self._connect()
        try:
            return run_migrations(conn)
        except psycopg.Error as exc:
            raise translate(exc, self.url) from exc
        finally:
            conn.close()

    def schema_version(self) -> int:
        """The newest applied migration (0: a database never migrated)."""
        with self._borrow() as conn:
            return schema_version(conn)

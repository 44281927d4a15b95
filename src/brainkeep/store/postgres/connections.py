"""The engine's connections: a psycopg pool, and which connection a thread's statement uses.

A statement runs on, in order of preference:

1. the connection this thread holds: its open ``transaction()``, or a
   ``session()`` (a block of autocommit statements sharing one checkout);
2. else a connection borrowed from the pool for that one statement.

A checkout costs a pool round trip (lock, queue, and the liveness check);
a request that runs ten reads pays it once inside ``session()``. The
liveness check (an empty query) only runs on a connection that sat idle in
the pool for more than ``CHECK_IDLE_S``: a connection used a moment ago is
almost surely alive, and if the server did die since, the statement fails
with ``Unavailable`` (fail fast) and the pool drops the broken connection.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from brainkeep.store.postgres.driver import translate

log = logging.getLogger("brainkeep.store.postgres")

Connection = psycopg.Connection[Any]
# A connection back in the pool for less than this is handed out unchecked.
CHECK_IDLE_S = 1.0
# How long a read run beside another waits for a connection before giving up.
SPARE_WAIT_S = 0.02
# The planner's cost of a random page read on brainkeep's connections.
RANDOM_PAGE_COST = 1.1


def configure_session(conn: Connection, *, lock_timeout_ms: int, vector: bool) -> None:
    """Settings of every new pooled connection (``vector``: pgvector's types registered)."""
    conn.execute(f"SET lock_timeout = {int(lock_timeout_ms)}")
    # A brain's hot rows live in memory, where PostgreSQL's default
    # random_page_cost (4, for spinning disks) steers a keyword read with a
    # newest-N floor onto a primary-key walk that filters thousands of rows,
    # instead of ANDing the text index with the key range (~3x the time of
    # that statement on bench/recall_query.py). 1.1 is the usual value for
    # SSDs and cached data; a value the server's operator set is left alone.
    conn.execute(f"SELECT set_config('random_page_cost', '{RANDOM_PAGE_COST}', false) "
                 "FROM pg_settings WHERE name = 'random_page_cost' AND source = 'default'")
    if vector:
        from pgvector.psycopg import register_vector  # the extension exists only then

        register_vector(conn)


class ThreadState(threading.local):
    """What one thread holds: a connection (transaction or session) and nesting depths."""

    conn: Connection | None = None
    depth: int = 0  # transaction nesting (0: none open)
    reading: int = 0  # read_only() nesting
    # Values a session's reads may share (``PostgresEngine.session_memo``).
    memo: dict[str, Any] | None = None


class Connections:
    """A pool plus per-thread holding (``borrow``, ``session``)."""

    def __init__(self, url: str, kwargs: dict[str, Any], *, pool_min: int, pool_max: int,
                 timeout_s: float, configure: Callable[[Connection], None], name: str) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.local = ThreadState()
        self._returned: weakref.WeakKeyDictionary[Connection, float] = (
            weakref.WeakKeyDictionary())
        self._name = name
        self.pool: ConnectionPool[Connection] = ConnectionPool(
            url,
            min_size=pool_min,
            max_size=max(pool_min, pool_max),
            kwargs=kwargs,
            configure=configure,
            check=self._check,
            timeout=timeout_s,
            reconnect_timeout=max(30.0, timeout_s),
            reconnect_failed=self._reconnect_failed,
            name=name,
            open=False,
        )
        self.pool.open(wait=False)

    def _check(self, conn: Connection) -> None:
        returned = self._returned.get(conn)
        if returned is not None and time.monotonic() - returned < CHECK_IDLE_S and not conn.broken:
            return
        ConnectionPool.check_connection(conn)

    def _reconnect_failed(self, pool: ConnectionPool[Connection]) -> None:
        # The pool keeps trying on later requests; this only says so, once per outage.
        log.warning("lost the brain database (%s); reconnecting on the next request", self._name)

    def checkout(self) -> Connection:
        try:
            return self.pool.getconn(timeout=self.timeout_s)
        except psycopg.Error as exc:
            raise translate(exc, self.url) from exc

    def checkin(self, conn: Connection) -> None:
        self._returned[conn] = time.monotonic()
        self.pool.putconn(conn)  # the pool discards a broken connection

    @contextmanager
    def borrow(self) -> Iterator[Connection]:
        """This thread's held connection, or one borrowed from the pool for the block."""
        held = self.local.conn
        if held is not None:
            yield held
            return
        conn = self.checkout()
        try:
            yield conn
        finally:
            self.checkin(conn)

    @contextmanager
    def own(self) -> Iterator[Connection]:
        """A pooled connection of the block's own, whatever this thread holds (streams)."""
        conn = self.checkout()
        try:
            yield conn
        finally:
            self.checkin(conn)

    @contextmanager
    def session(self) -> Iterator[None]:
        """Statements of this thread share one checkout for the block (re-entrant)."""
        if self.local.conn is not None:
            yield
            return
        with self._holding(self.checkout()):
            yield

    @contextmanager
    def side_session(self) -> Iterator[bool]:
        """A ``session()`` on a connection the pool can give without a wait (else False)."""
        if self.local.conn is not None:
            yield True
            return
        stats = self.pool.get_stats()
        if stats.get("pool_available", 0) == 0 and stats.get("pool_size", 0) >= self.pool.max_size:
            yield False
            return
        try:
            # A pool below its maximum opens a connection within a few ms.
            conn = self.pool.getconn(timeout=SPARE_WAIT_S)
        except psycopg.Error:  # PoolTimeout, or the database is gone: the caller reads itself
            yield False
            return
        with self._holding(conn):
            yield True

    @contextmanager
    def _holding(self, conn: Connection) -> Iterator[None]:
        local = self.local
        local.conn, local.memo = conn, {}
        try:
            yield
        finally:
            local.conn, local.memo = None, None
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                try:  # a block that left a transaction open must not leak it to the pool
                    conn.execute("ROLLBACK")
                except psycopg.Error:
                    pass  # a broken connection: the pool discards it
            self.checkin(conn)

    @contextmanager
    def streaming(self, in_transaction: bool) -> Iterator[Connection]:
        """The connection a server-side cursor reads on (``PostgresEngine.stream``)."""
        held = self.local.conn
        if in_transaction and held is not None:
            yield held  # the transaction's snapshot
            return
        # Not a session's connection: the stream's read transaction would
        # swallow the statements its consumer runs between rows.
        with self.own() as conn:
            try:
                conn.execute("BEGIN READ ONLY")
                yield conn
            finally:
                if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    conn.execute("ROLLBACK")

    def check(self) -> None:
        """Validate pooled connections now, dropping dead ones (``doctor``, health)."""
        self.pool.check()

    def stats(self) -> dict[str, int]:
        return {k: int(v) for k, v in self.pool.get_stats().items()}

    def close(self) -> None:
        self.pool.close()
        self.local = ThreadState()

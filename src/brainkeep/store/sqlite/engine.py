"""SQLite connections, transactions and migrations.

A connection is used by one thread at a time, all opened by ``_connect`` with
the same pragmas. A server call runs in ``session()``, which lends the thread
the connection most recently handed back: each connection keeps its own page
cache, and drops all of it when it next finds another connection's commit,
so sequential calls spread over a pool of worker threads (gRPC, HTTP) each
paid for re-reading their pages. Outside a session a thread uses a
connection of its own. Writers serialize through ``BEGIN IMMEDIATE`` plus a busy
timeout, so two processes (a server and the CLI) can write one brain at once.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from brainkeep.core.memory.writes import normalize_fact
from brainkeep.errors import BrainkeepError, Busy, StoreError
from brainkeep.store.sqlite.statistics import watch

# How long a writer waits for another process's write lock before `Busy`
# (settings key `store.busy_timeout_ms`).
BUSY_TIMEOUT_MS = 30_000

log = logging.getLogger("brainkeep.store")


# Primary result codes (the low byte of an extended code such as
# SQLITE_BUSY_SNAPSHOT = 517). Matched by code, not by message text: the text
# is for humans and differs across SQLite versions and locales.
SQLITE_BUSY = 5
SQLITE_LOCKED = 6
_LOCK_CODES = frozenset({SQLITE_BUSY, SQLITE_LOCKED})


def is_lock_timeout(exc: sqlite3.Error) -> bool:
    """True when ``exc`` is SQLITE_BUSY/SQLITE_LOCKED (any extended variant)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _LOCK_CODES


def _translate(exc: sqlite3.Error, busy_timeout_ms: int | None = None) -> BrainkeepError:
    """The one place sqlite3 errors become ours (callers `raise ... from exc`)."""
    if is_lock_timeout(exc):
        waited = f" for over {busy_timeout_ms} ms" if busy_timeout_ms is not None else ""
        return Busy(
            "The brain is locked by another writer.",
            suggestion=(
                f"Another writer held the brain's lock{waited} (another brainkeep process, "
                "a backup or a script); nothing was written. Retry shortly; if it persists, "
                "look for a stuck process or raise `store.busy_timeout_ms`."
            ),
            detail=str(getattr(exc, "sqlite_errorname", "SQLITE_BUSY")),
        )
    return StoreError("The brain database failed.", detail=f"{type(exc).__name__}: {exc}")


class _Local(threading.local):
    conn: sqlite3.Connection | None = None  # the thread's own, outside sessions
    lent: sqlite3.Connection | None = None  # the session's, while one is open
    depth: int = 0


class SQLiteEngine:
    """Connections, the one ``transaction()`` context manager, and migrations."""

    # The driver's parameter mark (statements shared by both engines use it).
    placeholder = "?"

    def __init__(
        self, path: str | Path, *, synchronous: str = "FULL", busy_timeout_ms: int | None = None
    ) -> None:
        """Open (and migrate) the brain at ``path``.

        Args:
            path: The database file (``:memory:`` for a throwaway brain).
            synchronous: The ``PRAGMA synchronous`` level (``FULL`` or ``NORMAL``).
            busy_timeout_ms: How long a write waits for another connection's
                lock before failing with ``Busy`` (None: ``BUSY_TIMEOUT_MS``).
        """
        self.path = str(path)
        self._synchronous = synchronous
        self.busy_timeout_ms = BUSY_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms
        self._local = _Local()
        self._all: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        self._idle: list[sqlite3.Connection] = []  # session connections, last returned last
        # Threads of one process queue here for the write lock: SQLite's busy
        # handler sleeps in growing steps, which turns contention into long
        # tail latency. Other processes still wait through busy_timeout.
        self._write_lock = threading.Lock()
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # Refreshes the planner statistics as the brain grows (store/sql/statistics.py);
        # no background checks on ``:memory:``, where each connection is its own database.
        self.statistics = watch(self, every=0) if self.path == ":memory:" else watch(self)
        self.migrate()

    # -- connections -------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                timeout=self.busy_timeout_ms / 1000,
                check_same_thread=False,
            )
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
            conn.execute("PRAGMA journal_mode = WAL")
            # FULL: a write that returned is on disk even after power loss.
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
            conn.execute("PRAGMA foreign_keys = ON")
            # A forgotten memory's bytes must not linger in freed cells and
            # pages (store/sqlite/erasure.py; some builds default to FAST).
            conn.execute("PRAGMA secure_delete = ON")
            # Migration 0009 recomputes the facts' duplicate key in SQL with
            # the one Python rule (a migration file cannot run Python itself).
            conn.create_function("brainkeep_fact_key", 1, normalize_fact, deterministic=True)
        except sqlite3.Error as exc:
            raise _translate(exc, self.busy_timeout_ms) from exc
        with self._all_lock:
            self._all.append(conn)
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        local = self._local
        if local.lent is not None:
            return local.lent
        if local.conn is None:
            local.conn = self._connect()
        return local.conn

    @contextmanager
    def session(self) -> Iterator[None]:
        """This thread's statements in the block run on a lent connection, the warmest idle one.

        Nested in a session, or inside a transaction on the thread's own
        connection, the block keeps the connection it has. ``:memory:`` keeps
        per-thread connections: each would be a database of its own.
        """
        local = self._local
        if local.lent is not None or local.depth or self.path == ":memory:":
            yield
            return
        with self._all_lock:
            conn = self._idle.pop() if self._idle else None
        local.lent = conn if conn is not None else self._connect()
        try:
            yield
        finally:
            conn, local.lent = local.lent, None
            with self._all_lock:
                if conn in self._all:  # not closed meanwhile
                    self._idle.append(conn)

    def optimize(self) -> None:
        """Refresh the query planner's statistics (bounded work, ~10 ms).

        Without statistics SQLite can pick an index that walks every page;
        call this after bulk writes and when a server starts. Every
        connection plans with the new statistics from its next statement on,
        and commits refresh them again once the brain outgrew them.
        """
        self.statistics.refresh()

    def close(self) -> None:
        """Close every connection this engine opened (after stopping the statistics checks)."""
        self.statistics.close()
        with self._all_lock:
            for conn in self._all:
                try:
                    conn.close()
                except sqlite3.Error as exc:  # closing the rest matters more than one failure
                    log.warning("closing a connection to %s failed: %s", self.path, exc)
            self._all.clear()
            self._idle.clear()
        self._local = _Local()

    # -- statements --------------------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        try:
            return self.conn.execute(sql, params)
        except sqlite3.Error as exc:
            raise _translate(exc, self.busy_timeout_ms) from exc

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            self.conn.executemany(sql, rows)
        except sqlite3.Error as exc:
            raise _translate(exc, self.busy_timeout_ms) from exc

    def one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.execute(sql, params).fetchone()
        return row

    def all(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        return list(self.execute(sql, params).fetchall())

    def scalar(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        row = self.execute(sql, params).fetchone()
        return None if row is None else row[0]

    @contextmanager
    def writing(self) -> Iterator[None]:
        """The caller's transaction if this thread has one open, else a new one.

        For engine-owned invariants (the event chain's tail) that must hold the
        write lock even when a caller forgot ``transaction()``.
        """
        if self._local.depth:
            yield
            return
        with self.transaction():
            yield

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run the block atomically; nested blocks become savepoints.

        Store methods never commit on their own: the outermost
        ``transaction()`` commits, so a service's writes and their audit
        event land together or not at all.
        """
        local = self._local
        conn = self.conn
        depth = local.depth
        if depth == 0:
            self._write_lock.acquire()
        try:
            try:
                conn.execute("BEGIN IMMEDIATE" if depth == 0 else f"SAVEPOINT sp{depth}")
            except sqlite3.Error as exc:
                raise _translate(exc, self.busy_timeout_ms) from exc
            local.depth = depth + 1
            try:
                yield
            except BaseException:
                local.depth = depth
                try:
                    if depth == 0:
                        conn.execute("ROLLBACK")
                    else:
                        conn.execute(f"ROLLBACK TO sp{depth}")
                        conn.execute(f"RELEASE sp{depth}")
                except sqlite3.Error as exc:
                    # The block's own error is what the caller must see; a
                    # failed rollback (the connection is already out of the
                    # transaction) is only logged.
                    log.warning("rollback after a failed transaction failed: %s", exc)
                raise
            local.depth = depth
            try:
                conn.execute("COMMIT" if depth == 0 else f"RELEASE sp{depth}")
            except sqlite3.Error as exc:
                if depth == 0 and conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise _translate(exc, self.busy_timeout_ms) from exc
        finally:
            if depth == 0:
                self._write_lock.release()
        if depth == 0:
            self.statistics.committed()

    # -- migrations --------------------------------------------------------

    @staticmethod
    def available_migrations() -> list[tuple[int, str, str]]:
        """(version, name, sql) of every shipped migration, in order."""
        folder = resources.files("brainkeep.store.sqlite") / "migrations"
        found = []
        for entry in folder.iterdir():
            name = entry.name
            if name.endswith(".sql") and name[:4].isdigit():
                found.append((int(name[:4]), name[5:-4], entry.read_text(encoding="utf-8")))
        return sorted(found)

    def schema_version(self) -> int:
        """The newest applied migration (0: a brain never migrated)."""
        if not self.scalar(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        ):
            return 0
        return int(self.scalar("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))

    def migrate(self) -> list[int]:
        """Apply pending migrations in place; returns the versions applied.

        Each migration runs in its own IMMEDIATE transaction and re-checks the
        version inside it, so two processes opening an old brain at once
        migrate it exactly once.
        """
        applied: list[int] = []
        # The ledger that records migrations cannot be created by one; this is
        # the only lasting DDL outside migrations/*.sql (a statistics refresh
        # creates and drops a table in one transaction), and it runs here,
        # never on a query path.
        self.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        current = self.schema_version()
        for version, name, sql in self.available_migrations():
            if version <= current:
                continue
            with self.transaction():
                if self.scalar(
                    "SELECT 1 FROM schema_migrations WHERE version = ?", (version,)
                ):
                    continue
                for statement in _statements(sql):
                    self.execute(statement)
                self.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (version, name, datetime.now(UTC).isoformat()),
                )
                if version == 1:
                    self._seed()
            applied.append(version)
        return applied

    def _seed(self) -> None:
        now = datetime.now(UTC).isoformat()
        self.execute(
            "INSERT OR IGNORE INTO sources (id, name, created_at) VALUES ('default', 'default', ?)",
            (now,),
        )
        self.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('created_at', ?)", (now,))


def _statements(script: str) -> Iterator[str]:
    """Split a migration script into complete statements (keeps triggers whole)."""
    buffer: list[str] = []
    for line in script.splitlines():
        if not buffer and (not line.strip() or line.strip().startswith("--")):
            continue
        buffer.append(line)
        candidate = "\n".join(buffer)
        if sqlite3.complete_statement(candidate):
            yield candidate
            buffer = []
    if "".join(buffer).strip():
        yield "\n".join(buffer)

"""Planner statistics that describe the brain as it is now, not as it was at start-up.

SQLite plans with what the last ANALYZE wrote to ``sqlite_stat1``, and a
connection reads that table only when it loads the schema. On a new brain
both bite (issue 22): a server refreshes the statistics right after it
starts, when the brain holds no page or one, and the planner keeps
believing every table has one row (``entity`` scanned the aliases and walked
the ``updated_at`` index: ~4.8 ms instead of ~0.4 ms on 2,000 pages, until a
restart); and a refresh reaches only the connection that ran it — every
other thread's connection keeps the numbers it loaded.

So a refresh (1) runs a bounded ANALYZE, (2) changes the schema (a table
created and dropped in the same transaction): every connection, in this
process and in others, then reloads the schema and the new statistics
before its next statement; and (3) remembers how big the brain was. Every
``CHECK_EVERY_COMMITS`` commits a background thread compares the brain's
size with that and refreshes again once a size table grew past ``GROWTH``
times (and ``MIN_ROWS`` rows): a dozen times as a brain grows from one page
to a million, each ~10-250 ms, on no caller's path.
"""

from __future__ import annotations

import logging
import threading
from contextlib import AbstractContextManager
from typing import Any, Protocol

from brainkeep.errors import BrainkeepError

log = logging.getLogger("brainkeep.store")

# Commits between two size checks (a check is two index lookups, ~20 us).
CHECK_EVERY_COMMITS = 100
# Statistics are stale once a size table holds this many times the rows they describe...
GROWTH = 2
# ...and at least this many: below, every plan is fast and a refresh is wasted work.
MIN_ROWS = 100
# The tables whose size is the brain's size; aliases, links, chunks and the
# keyword indexes grow with them. Insert-mostly (updates and forgets keep the
# row), so ``max(rowid)`` measures them in one index lookup — ``count(*)``
# reads every row (7-27 ms at 200K pages).
SIZE_TABLES = ("pages", "memories")
# ANALYZE samples this many rows per index (SQLite's ``analysis_limit``), so
# a refresh costs about the same at any size.
ANALYSIS_LIMIT = 1000
# Created and dropped by a refresh; only the schema change it makes matters.
_RELOAD_TABLE = "brainkeep_statistics_reload"


class Engine(Protocol):
    """What a refresh needs of the SQLite engine (engine.py owns the watch: no import back)."""

    def execute(self, sql: str) -> object: ...
    def scalar(self, sql: str) -> Any: ...
    def all(self, sql: str) -> list[Any]: ...
    def transaction(self) -> AbstractContextManager[None]: ...


def grown(recorded: dict[str, int], now: dict[str, int]) -> bool:
    """True when a table of ``now`` outgrew what the statistics (``recorded``) describe."""
    return any(rows >= MIN_ROWS and rows > GROWTH * recorded.get(table, 0)
               for table, rows in now.items())


class StatisticsWatch:
    """Refreshes one brain's planner statistics when asked and when the brain outgrew them."""

    def __init__(self, engine: Engine, *, every: int = CHECK_EVERY_COMMITS) -> None:
        """Watch ``engine``'s brain; ``every``: commits between checks (0: never check)."""
        self._engine = engine
        self._every = every
        self._commits = 0
        self._recorded: dict[str, int] | None = None  # None: not read yet
        self._cond = threading.Condition()
        self._pending = False  # a check was asked for
        self._busy = False  # a check is running
        self._closed = False
        self._thread: threading.Thread | None = None

    def refresh(self) -> None:
        """ANALYZE, make every connection load the result, and remember the sizes it saw."""
        db = self._engine
        db.execute(f"PRAGMA analysis_limit = {ANALYSIS_LIMIT}")
        with db.transaction():
            db.execute("ANALYZE")
            db.execute(f"CREATE TABLE IF NOT EXISTS {_RELOAD_TABLE} (x)")
            db.execute(f"DROP TABLE IF EXISTS {_RELOAD_TABLE}")
            sizes = self.sizes()
        self._recorded = sizes

    def sizes(self) -> dict[str, int]:
        """Each size table's rows, as ``max(rowid)`` (rows ever inserted)."""
        return {table: int(self._engine.scalar(f"SELECT COALESCE(MAX(rowid), 0) FROM {table}"))
                for table in SIZE_TABLES}

    def recorded(self) -> dict[str, int]:
        """The rows per size table the statistics describe (a table missing: 0)."""
        if self._recorded is None:
            # Not refreshed by this process: what the last ANALYZE wrote (the
            # first number of a ``stat`` is the table's row count).
            rows = self._engine.all(
                "SELECT tbl, MAX(CAST(stat AS INTEGER)) AS n FROM sqlite_stat1 GROUP BY tbl"
            ) if self._engine.scalar(
                "SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'") else []
            found = {row["tbl"]: int(row["n"] or 0) for row in rows}
            self._recorded = {table: found.get(table, 0) for table in SIZE_TABLES}
        return self._recorded

    def refresh_if_grown(self) -> bool:
        """Refresh when the brain outgrew its statistics; True if it did."""
        if not grown(self.recorded(), self.sizes()):
            return False
        self.refresh()
        return True

    # -- the cadence ---------------------------------------------------------

    def committed(self) -> None:
        """Count one commit; every ``every``-th asks the checking thread for a check."""
        if not self._every:
            return
        with self._cond:
            self._commits += 1
            if self._commits % self._every or self._closed:
                return
            self._pending = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="brainkeep-statistics")
                self._thread.start()
            self._cond.notify_all()

    def settle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for asked-for checks to finish; True if none is left."""
        with self._cond:
            return self._cond.wait_for(lambda: not (self._pending or self._busy), timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Stop checking (waits, bounded, for a refresh under way); explicit refreshes still run."""
        with self._cond:
            self._closed = True
            thread, self._thread = self._thread, None
            self._cond.notify_all()
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending or self._closed)
                if self._closed:
                    self._pending = False
                    self._cond.notify_all()
                    return
                self._pending, self._busy = False, True
            try:
                self.refresh_if_grown()
            except BrainkeepError as exc:  # the statistics it has still serve
                log.warning("statistics refresh skipped: %s", exc.message)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

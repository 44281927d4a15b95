"""Planner statistics that describe the brain as it is now, not as it was at start-up.

A server refreshes the planner's statistics right after it starts (and the
CLI after bulk writes). On a new brain that refresh describes one page, and
both engines kept planning for one page after the brain grew (issue 22):
SQLite until a restart (``entity`` scanned the aliases and walked the
``updated_at`` index: ~5 ms instead of ~1 ms on 2,000 pages); PostgreSQL
until autovacuum next analysed the tables — its generic plans of prepared
statements, made from those statistics, looked pages up through the
``updated_at`` or ``type`` index.

So each engine counts its commits, and every ``CHECK_EVERY_COMMITS`` a
background thread compares the brain's size with what the statistics
describe; once a size table grew past ``GROWTH`` times (and ``MIN_ROWS``
rows) it refreshes them — a dozen times as a brain grows from one page to a
million, each ~10-250 ms, on no caller's path. What the engines differ in
(how to refresh so every connection replans, where the recorded row counts
live) is passed in: store/sqlite/statistics.py, store/postgres/statistics.py.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from brainkeep.errors import BrainkeepError

log = logging.getLogger("brainkeep.store")

# Commits between two size checks (a check is a few index lookups, ~20 us).
CHECK_EVERY_COMMITS = 100
# Statistics are stale once a size table holds this many times the rows they describe...
GROWTH = 2
# ...and at least this many: below, every plan is fast and a refresh is wasted work.
MIN_ROWS = 100
# The tables whose size is the brain's size; aliases, links, chunks and the
# keyword indexes grow with them. Insert-mostly (updates and forgets keep the
# row), so the largest id measures them in one index lookup — ``count(*)``
# reads every row (7-27 ms at 200K pages).
SIZE_TABLES = ("pages", "memories")


class Engine(Protocol):
    """The statements a refresh runs (each engine module owns its watch: no import back)."""

    def execute(self, sql: str) -> object: ...
    def scalar(self, sql: str) -> Any: ...
    def all(self, sql: str) -> list[Any]: ...
    def transaction(self) -> AbstractContextManager[None]: ...


def grown(recorded: dict[str, int], now: dict[str, int]) -> bool:
    """True when a table of ``now`` outgrew what the statistics (``recorded``) describe."""
    return any(rows >= MIN_ROWS and rows > GROWTH * recorded.get(table, 0)
               for table, rows in now.items())


def sizes(db: Engine) -> dict[str, int]:
    """Each size table's rows, as its largest id (rows ever inserted)."""
    return {table: int(db.scalar(f"SELECT COALESCE(MAX(id), 0) FROM {table}"))
            for table in SIZE_TABLES}


class StatisticsWatch:
    """Refreshes one brain's planner statistics when asked and when the brain outgrew them."""

    def __init__(self, db: Engine, *, analyze: Callable[[], None],
                 recorded: Callable[[], dict[str, int]], every: int = CHECK_EVERY_COMMITS
                 ) -> None:
        """Watch the brain behind ``db``.

        Args:
            db: The engine (size lookups).
            analyze: Refreshes the statistics so every connection plans with them.
            recorded: The rows per size table the statistics describe now.
            every: Commits between checks (0: never check).
        """
        self._db = db
        self._analyze = analyze
        self._recorded = recorded
        self._every = every
        self._commits = 0
        # Sizes at this process's last refresh: the engine's own row counts
        # can stay below the largest id (deleted rows), which must not make
        # every check refresh again.
        self._refreshed_at: dict[str, int] = {}
        self._cond = threading.Condition()
        self._pending = False  # a check was asked for
        self._busy = False  # a check is running
        self._closed = False
        self._thread: threading.Thread | None = None

    def refresh(self) -> None:
        """Refresh the statistics now and remember the sizes they describe."""
        before = sizes(self._db)
        self._analyze()
        self._refreshed_at = before

    def stale(self) -> bool:
        """Whether the brain outgrew its statistics."""
        baseline = dict(self._recorded())
        for table, rows in self._refreshed_at.items():
            baseline[table] = max(baseline.get(table, 0), rows)
        return grown(baseline, sizes(self._db))

    def refresh_if_grown(self) -> bool:
        """Refresh when the brain outgrew its statistics; True if it did."""
        if not self.stale():
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

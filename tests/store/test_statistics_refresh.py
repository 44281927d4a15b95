"""SQLite's planner statistics follow the brain as it grows (issue 22).

A server refreshes the statistics when it starts; on a new brain that
refresh describes one page, and the planner kept planning for one page
(``entity`` scanned the aliases table and walked the ``updated_at`` index)
until a restart. These tests grow a real brain past what its statistics
describe and check what the planner does with the entity lookups — the
statements the store really runs, captured from the connection — never
how long anything takes.

PostgreSQL needs none of this: its planner scales the recorded row count
by the table's current size, and autovacuum re-analyzes a grown table (the
issue-22 bench, bench/entity_fresh_brain.py, shows no fresh-brain penalty there).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import Settings
from brainkeep.store.sqlite import SQLiteStore
from brainkeep.store.sqlite.statistics import CHECK_EVERY_COMMITS, GROWTH, MIN_ROWS, grown

# Enough pages for several checks past MIN_ROWS (put_page commits at least once).
GROWN_PAGES = 3 * CHECK_EVERY_COMMITS + 50
WAIT_S = 60.0  # a bound on waiting for the background refresh, not a measurement
_fresh = itertools.count()


@pytest.fixture
def brain(tmp_path: Path) -> Iterator[Brain]:
    opened = open_brain(Settings(home=tmp_path), embedder=None, chat=None)
    try:
        yield opened
    finally:
        opened.close()


def put_people(brain: Brain, first: int, last: int) -> None:
    for i in range(first, last):
        brain.pages.put_page(f"people/person-{i:05d}",
                             f"---\ntitle: Person {i}\naliases: [P{i}]\n---\nPerson {i}.\n")


def sqlite_store(brain: Brain) -> SQLiteStore:
    assert isinstance(brain.store, SQLiteStore)
    return brain.store


def recorded_pages(store: SQLiteStore) -> int:
    """The pages the statistics describe (0: none recorded)."""
    if not store.db.scalar("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'"):
        return 0
    return int(store.db.scalar(
        "SELECT COALESCE(MAX(CAST(stat AS INTEGER)), 0) FROM sqlite_stat1 WHERE tbl = 'pages'"))


def lookup_plans(brain: Brain) -> dict[str, str]:
    """EXPLAIN QUERY PLAN of each entity lookup, on the calling thread's connection.

    The statements are the store's own, captured (parameters bound) with a
    trace callback while the lookups run. Each EXPLAIN gets a new text: an
    EXPLAIN reads no table, so a prepared one from the statement cache would
    never notice a schema change and keep its old plan.
    """
    store = sqlite_store(brain)
    conn = store.db.conn
    lookups: dict[str, Callable[[], object]] = {
        "alias": lambda: store.find_pages_by_alias(brain.source_id, "p7"),
        "title": lambda: store.find_pages_by_title(brain.source_id, "person 7"),
        "slug_tail": lambda: store.find_pages_by_slug_tail(brain.source_id, "person-00007"),
    }
    plans = {}
    for name, run in lookups.items():
        seen: list[str] = []
        conn.set_trace_callback(seen.append)
        try:
            run()
        finally:
            conn.set_trace_callback(None)
        (statement,) = [s for s in seen if s.lstrip().upper().startswith("SELECT")]
        rows = conn.execute(f"EXPLAIN QUERY PLAN {statement} -- {next(_fresh)}").fetchall()
        plans[name] = " | ".join(str(row["detail"]) for row in rows)
    return plans


def assert_indexed(plans: dict[str, str]) -> None:
    assert "USING INDEX page_aliases_norm" in plans["alias"], plans
    assert "USING INDEX pages_title_norm" in plans["title"], plans
    assert "USING INDEX pages_slug_tail" in plans["slug_tail"], plans


def wait_for(predicate: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_statistics_recorded_on_one_page_are_refreshed_as_the_brain_grows(brain: Brain) -> None:
    store = sqlite_store(brain)
    put_people(brain, 0, 1)
    store.optimize()  # what `brainkeep serve` does right after it starts
    assert recorded_pages(store) == 1
    put_people(brain, 1, GROWN_PAGES)
    # The refresh runs on a background thread after a commit; wait for it.
    assert wait_for(lambda: recorded_pages(store) >= GROWN_PAGES // GROWTH), (
        f"sqlite_stat1 still describes {recorded_pages(store)} page(s) of {GROWN_PAGES}")
    store.db.statistics.settle(WAIT_S)
    # This thread's connection loaded the one-page statistics and did not run
    # the refresh: it plans with the new ones all the same.
    assert_indexed(lookup_plans(brain))


def test_a_refresh_reaches_connections_opened_before_it(brain: Brain) -> None:
    store = sqlite_store(brain)
    put_people(brain, 0, 1)
    store.optimize()
    with ThreadPoolExecutor(max_workers=1) as worker:  # one thread: one connection
        worker.submit(lookup_plans, brain).result()  # loads the one-page statistics
        put_people(brain, 1, GROWN_PAGES)
        store.db.statistics.settle(WAIT_S)
        store.optimize()  # on this thread's connection, not the worker's
        assert_indexed(worker.submit(lookup_plans, brain).result())


def test_growth_rule() -> None:
    assert not grown({"pages": 1}, {"pages": MIN_ROWS - 1})  # too small to matter
    assert grown({"pages": 1}, {"pages": MIN_ROWS})
    assert grown({}, {"pages": MIN_ROWS})  # never analysed (empty at the time)
    assert not grown({"pages": 1000}, {"pages": 1000 * GROWTH})
    assert grown({"pages": 1000}, {"pages": 1000 * GROWTH + 1})
    assert grown({"pages": 1000, "memories": 10}, {"pages": 1000, "memories": 5000})


def test_close_stops_the_checking_thread(brain: Brain) -> None:
    put_people(brain, 0, CHECK_EVERY_COMMITS + 1)  # at least one check asked for
    names = {t.name for t in threading.enumerate()}
    assert "brainkeep-statistics" in names
    brain.close()
    assert "brainkeep-statistics" not in {t.name for t in threading.enumerate()}

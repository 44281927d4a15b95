"""Planner statistics follow the brain as it grows, on both engines (issue 22).

A server refreshes the statistics when it starts; on a new brain that
refresh describes one page, and the planners kept planning for one page
(SQLite until a restart: ``entity`` scanned the aliases table and walked the
``updated_at`` index; PostgreSQL until autovacuum ran: its generic plans
looked pages up through the ``updated_at`` or ``type`` index). These tests
grow a real brain past what its statistics describe and check the recorded
row counts and what the planner does with the lookups — the statements the
store really runs, captured as it runs them — never how long anything takes.
Autovacuum is off on the PostgreSQL brain, so only brainkeep's own refresh
can bring its statistics up to date.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import Settings
from brainkeep.store.sql.statistics import CHECK_EVERY_COMMITS, GROWTH, MIN_ROWS, grown

# Enough pages for several checks past MIN_ROWS (put_page commits at least once).
GROWN_PAGES = 3 * CHECK_EVERY_COMMITS + 50
WAIT_S = 60.0  # a bound on waiting for the background refresh, not a measurement
_fresh = itertools.count()
# Each lookup and the index its plan must use once the statistics are right.
INDEXES = {"alias": "page_aliases_norm", "title": "pages_title_norm",
           "slug_tail": "pages_slug_tail"}


def open_on(engine: str, home: Path) -> Brain:
    if engine == "sqlite":
        return open_brain(Settings(home=home), embedder=None, chat=None)
    from tests.pg_server import fresh_database

    url = fresh_database()
    brain = open_brain(Settings(home=home, values={"database.url": url}),
                       embedder=None, chat=None)
    with psycopg.connect(url, autocommit=True) as conn:
        for (table,) in conn.execute("SELECT tablename FROM pg_tables "
                                     "WHERE schemaname = current_schema()").fetchall():
            conn.execute(f'ALTER TABLE "{table}" SET (autovacuum_enabled = false)')
    return brain


@pytest.fixture(params=["sqlite", "postgres"])
def brain(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Brain]:
    opened = open_on(request.param, tmp_path)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def sqlite_brain(tmp_path: Path) -> Iterator[Brain]:
    opened = open_on("sqlite", tmp_path)
    try:
        yield opened
    finally:
        opened.close()


def watch_of(brain: Brain) -> Any:
    """The brain's statistics watch (the SQLite engine owns it; on PostgreSQL the store)."""
    store: Any = brain.store
    return store.statistics if brain.store.engine_name == "postgres" else store.db.statistics


def put_people(brain: Brain, first: int, last: int) -> None:
    for i in range(first, last):
        brain.pages.put_page(f"people/person-{i:05d}",
                             f"---\ntitle: Person {i}\naliases: [P{i}]\n---\nPerson {i}.\n")


def recorded_pages(brain: Brain) -> int:
    """The pages the planner statistics describe (0: none recorded)."""
    db: Any = brain.store.db  # type: ignore[attr-defined]
    if brain.store.engine_name == "postgres":
        return max(0, int(db.scalar("SELECT reltuples FROM pg_class "
                                    "WHERE oid = to_regclass('pages')")))
    if not db.scalar("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'"):
        return 0
    return int(db.scalar(
        "SELECT COALESCE(MAX(CAST(stat AS INTEGER)), 0) FROM sqlite_stat1 WHERE tbl = 'pages'"))


def lookups(brain: Brain) -> dict[str, Callable[[], object]]:
    store, source = brain.store, brain.source_id
    return {"alias": lambda: store.find_pages_by_alias(source, "p7"),
            "title": lambda: store.find_pages_by_title(source, "person 7"),
            "slug_tail": lambda: store.find_pages_by_slug_tail(source, "person-00007")}


def sqlite_plans(brain: Brain) -> dict[str, str]:
    """EXPLAIN QUERY PLAN of each lookup, on the calling thread's connection.

    The statements are captured (parameters bound) with a trace callback
    while the lookups run. Each EXPLAIN gets a new text: an EXPLAIN reads no
    table, so a prepared one from the statement cache would never notice a
    schema change and keep its old plan.
    """
    conn = brain.store.db.conn  # type: ignore[attr-defined]
    plans = {}
    for name, run in lookups(brain).items():
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


def postgres_plans(brain: Brain, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The generic plan (what a prepared statement runs) of each lookup's statement."""
    from brainkeep.store.postgres.engine import PostgresEngine

    seen: list[str] = []
    run_statement = PostgresEngine._run

    def spy(self: PostgresEngine, conn: Any, sql: str, params: Any) -> Any:
        seen.append(sql)
        return run_statement(self, conn, sql, params)

    plans = {}
    db: Any = brain.store.db  # type: ignore[attr-defined]
    for name, run in lookups(brain).items():
        seen.clear()
        with monkeypatch.context() as patch:
            patch.setattr(PostgresEngine, "_run", spy)
            run()
        (statement,) = [s for s in seen if s.lstrip().upper().startswith("SELECT")]
        numbered = iter(range(1, 10))  # psycopg's %s marks as PostgreSQL's $n
        generic = "".join(f"${next(numbered)}" if part == "%s" else part
                          for part in _split_marks(statement))
        rows = db.all(f"EXPLAIN (GENERIC_PLAN) {generic}")
        plans[name] = " | ".join(str(row[0]).strip() for row in rows)
    return plans


def _split_marks(sql: str) -> list[str]:
    parts = sql.split("%s")
    out = [parts[0]]
    for part in parts[1:]:
        out += ["%s", part]
    return out


def assert_indexed(plans: dict[str, str]) -> None:
    for name, index in INDEXES.items():
        assert index in plans[name], plans


def wait_for(predicate: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_statistics_recorded_on_one_page_are_refreshed_as_the_brain_grows(
    brain: Brain, monkeypatch: pytest.MonkeyPatch
) -> None:
    put_people(brain, 0, 1)
    brain.store.optimize()  # what `brainkeep serve` does right after it starts
    assert recorded_pages(brain) == 1
    put_people(brain, 1, GROWN_PAGES)
    # The refresh runs on a background thread after a commit; wait for it.
    assert wait_for(lambda: recorded_pages(brain) >= GROWN_PAGES // GROWTH), (
        f"the statistics still describe {recorded_pages(brain)} page(s) of {GROWN_PAGES}")
    watch_of(brain).settle(WAIT_S)
    if brain.store.engine_name == "postgres":
        assert_indexed(postgres_plans(brain, monkeypatch))
    else:
        # This thread's connection loaded the one-page statistics and did not
        # run the refresh: it plans with the new ones all the same.
        assert_indexed(sqlite_plans(brain))


def test_a_sqlite_refresh_reaches_connections_opened_before_it(sqlite_brain: Brain) -> None:
    brain = sqlite_brain
    put_people(brain, 0, 1)
    brain.store.optimize()
    with ThreadPoolExecutor(max_workers=1) as worker:  # one thread: one connection
        worker.submit(sqlite_plans, brain).result()  # loads the one-page statistics
        put_people(brain, 1, GROWN_PAGES)
        watch_of(brain).settle(WAIT_S)
        brain.store.optimize()  # on this thread's connection, not the worker's
        assert_indexed(worker.submit(sqlite_plans, brain).result())


def test_growth_rule() -> None:
    assert not grown({"pages": 1}, {"pages": MIN_ROWS - 1})  # too small to matter
    assert grown({"pages": 1}, {"pages": MIN_ROWS})
    assert grown({}, {"pages": MIN_ROWS})  # never analysed (empty at the time)
    assert not grown({"pages": 1000}, {"pages": 1000 * GROWTH})
    assert grown({"pages": 1000}, {"pages": 1000 * GROWTH + 1})
    assert grown({"pages": 1000, "memories": 10}, {"pages": 1000, "memories": 5000})


def test_close_stops_the_checking_thread(brain: Brain) -> None:
    put_people(brain, 0, CHECK_EVERY_COMMITS + 1)  # at least one check asked for
    assert "brainkeep-statistics" in {t.name for t in threading.enumerate()}
    brain.close()
    assert "brainkeep-statistics" not in {t.name for t in threading.enumerate()}

"""The event log's tail is read by its key, whatever SQLite's planner statistics say.

With the statistics of the 600K-event bench brain, SQLite read
``ORDER BY seq DESC LIMIT 1`` through the subject index and sorted the whole
log (about 0.5 s per append). The statistics are planted here as that brain
recorded them, so the test needs no big brain.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from brainkeep.store import open as open_store
from brainkeep.store.sql.events import _TAIL

BENCH_STATS = [("events", "events_kind_seq", "525504 401 1"),
               ("events", "events_subject", "140760 401 1 1"),
               ("events", "sqlite_autoindex_events_1", "620400 1")]


def _plan(db: Path, sql: str) -> str:
    with sqlite3.connect(db) as con:
        con.execute("ANALYZE")  # creates sqlite_stat1
        con.execute("DELETE FROM sqlite_stat1 WHERE tbl = 'events'")
        con.executemany("INSERT INTO sqlite_stat1 VALUES (?, ?, ?)", BENCH_STATS)
        con.commit()
    with sqlite3.connect(db) as con:  # a new connection loads the planted statistics
        return " | ".join(r[3] for r in con.execute("EXPLAIN QUERY PLAN " + sql))


def test_the_tail_is_a_key_lookup_under_the_bench_statistics(tmp_path: Path) -> None:
    db = tmp_path / "brain.db"
    open_store(str(db)).close()
    plan = _plan(db, _TAIL)
    assert "TEMP B-TREE" not in plan and "PRIMARY KEY" in plan, plan
    # The statement it replaced sorts under the same statistics (the check can fail).
    old = _plan(db, "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1")
    assert "TEMP B-TREE" in old, old

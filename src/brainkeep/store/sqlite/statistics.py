"""SQLite's half of the statistics refresh (store/sql/statistics.py has the rule and the cadence).

SQLite plans with what the last ANALYZE wrote to ``sqlite_stat1``, and a
connection reads that table only when it loads the schema: a refresh
reaches the connection that ran it and no other — every other thread's
connection keeps the numbers it loaded. So a refresh also changes the
schema (a table created and dropped in the same transaction): every
connection, in this process and in others, then reloads the schema and the
new statistics before its next statement.
"""

from __future__ import annotations

from brainkeep.store.sql.statistics import CHECK_EVERY_COMMITS, SIZE_TABLES, Engine, StatisticsWatch

# ANALYZE samples this many rows per index (SQLite's ``analysis_limit``), so
# a refresh costs about the same at any size.
ANALYSIS_LIMIT = 1000
# Created and dropped by a refresh; only the schema change it makes matters.
_RELOAD_TABLE = "brainkeep_statistics_reload"


def analyze(db: Engine) -> None:
    """A bounded ANALYZE that every connection plans with from its next statement on."""
    db.execute(f"PRAGMA analysis_limit = {ANALYSIS_LIMIT}")
    with db.transaction():
        db.execute("ANALYZE")
        db.execute(f"CREATE TABLE IF NOT EXISTS {_RELOAD_TABLE} (x)")
        db.execute(f"DROP TABLE IF EXISTS {_RELOAD_TABLE}")


def recorded_rows(db: Engine) -> dict[str, int]:
    """The rows per size table the last ANALYZE recorded (none recorded: 0).

    The first number of a ``sqlite_stat1.stat`` is the table's row count;
    ANALYZE records nothing for an empty table.
    """
    if not db.scalar("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'"):
        return {}
    rows = db.all("SELECT tbl, MAX(CAST(stat AS INTEGER)) AS n FROM sqlite_stat1 GROUP BY tbl")
    found = {row["tbl"]: int(row["n"] or 0) for row in rows}
    return {table: found[table] for table in SIZE_TABLES if table in found}


def watch(db: Engine, *, every: int = CHECK_EVERY_COMMITS) -> StatisticsWatch:
    """The statistics watch of one SQLite brain (``every``: commits between checks, 0: none)."""
    return StatisticsWatch(db, analyze=lambda: analyze(db), recorded=lambda: recorded_rows(db),
                           every=every)

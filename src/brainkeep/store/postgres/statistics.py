"""PostgreSQL's half of the statistics refresh (the rule and cadence: store/sql/statistics.py).

psycopg prepares a statement after its fifth run, and PostgreSQL then plans
it once, generically, from the statistics of the moment; ANALYZE (ours or
autovacuum's) invalidates those plans in every session. Autovacuum would
re-analyse a grown table within its naptime (a minute by default) if it
runs at all; the refresh does not wait for it.
"""

from __future__ import annotations

from brainkeep.store.sql.statistics import SIZE_TABLES, Engine, StatisticsWatch


def analyze(db: Engine) -> None:
    """ANALYZE the brain (bounded: a fixed sample of rows per table, whatever its size)."""
    db.execute("ANALYZE")


def recorded_rows(db: Engine) -> dict[str, int]:
    """The rows per size table the statistics describe (``reltuples``; never analysed: 0)."""
    names = ", ".join(f"'{table}'" for table in SIZE_TABLES)  # constants, not input
    rows = db.all("SELECT relname, reltuples FROM pg_class "
                  f"WHERE oid IN (SELECT to_regclass(t) FROM unnest(ARRAY[{names}]) t)")
    return {row["relname"]: max(0, int(row["reltuples"])) for row in rows}


def watch(db: Engine) -> StatisticsWatch:
    """The statistics watch of one PostgreSQL brain."""
    return StatisticsWatch(db, analyze=lambda: analyze(db), recorded=lambda: recorded_rows(db))

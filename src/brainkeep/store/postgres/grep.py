"""Substring recall over ``memories`` through the trigram GIN index (migration 0013).

``store/sql/substring.py`` states the rule; this is its PostgreSQL mechanics, the
twin of ``store/sqlite/grep.py``. ``strpos`` rechecks exactly what the old
scan tested, so results are identical to it.

The walk reads the newest rows of the source in keyset batches
(``memories_created``), applies the read scope and the recheck, and stops at
``limit`` hits or after ``budget`` rows passed the filters. It is driven
from here, not left to the planner, whose row estimate for the read-scope
fragment is far too low to pick an ordered, early-stopping scan itself.

A needle of three or more characters is walked for ``FIRST_WALK`` filtered
rows (a frequent needle is answered there); otherwise
``brainkeep_trigrams(lower(text)) @> brainkeep_trigram_cover(needle)`` selects,
through the ``memories_grep`` index, a superset of the rows holding it: the
cost follows the matches, never the table. A shorter needle is walked for
``SHORT_WINDOW`` filtered rows and no further.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brainkeep.store.postgres.driver import Row
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.sql.substring import SHORT_WINDOW, indexed

# Filtered rows walked before an indexed needle goes to the index: one batch,
# enough for a needle in a quarter of the rows to fill a limit of 50.
FIRST_WALK = 250
# Ids read per walk batch (doubling up to MAX_BATCH on long walks).
FIRST_BATCH, MAX_BATCH = 250, 4_000
_ORDER = "ORDER BY m.created_at DESC, m.id DESC"


def grep_memories(
    db: PostgresEngine,
    where: str,
    params: dict[str, Any],
    needles: Sequence[str],
    limit: int,
    *,
    source_id: str,
    lower_needles: bool = True,
) -> list[Row]:
    """Rows of ``memories m`` passing ``where`` whose text holds any needle, newest first.

    Args:
        db: the engine.
        where: WHERE fragment on alias ``m`` (read scope, lifecycle, filters).
        params: its named parameters (not modified).
        needles: substrings, any of which selects a row.
        limit: rows to return at most.
        source_id: the source ``where`` selects (the walk reads its rows newest first).
        lower_needles: fold the needles with ``lower()`` (False: the caller
            folded them already, as ``memories_matching_terms`` does).
    """
    p = dict(params)
    p.update({f"grep{i}": needle for i, needle in enumerate(needles)})
    p.update(grep_source=source_id, grep_limit=limit)
    folded = [f"lower(%(grep{i})s)" if lower_needles else f"%(grep{i})s"
              for i in range(len(needles))]
    # lower() of a COLLATE "C" column folds ASCII only, as SQLite's does.
    recheck = "(" + " OR ".join(f"strpos(lower(m.text), {f}) > 0" for f in folded) + ")"
    use_index = indexed(needles)
    hits, complete = _walk(db, where, p, recheck, limit,
                           FIRST_WALK if use_index else SHORT_WINDOW)
    if complete or len(hits) >= limit or not use_index:
        return hits
    return db.all(index_query(where, recheck, folded), p)


def index_query(where: str, recheck: str, folded: Sequence[str]) -> str:
    """The query reading the trigram index (tests EXPLAIN it)."""
    grams = " OR ".join(
        f"brainkeep_trigrams(lower(m.text)) @> brainkeep_trigram_cover({f})" for f in folded)
    return (f"SELECT m.* FROM memories m WHERE {where} AND ({grams}) AND {recheck} "
            f"{_ORDER} LIMIT %(grep_limit)s")


def _walk(db: PostgresEngine, where: str, p: dict[str, Any], recheck: str, limit: int,
          budget: int) -> tuple[list[Row], bool]:
    """Hits among the newest ``budget`` rows passing ``where``; True when the source ran out."""
    hits: list[int] = []
    passed, batch = 0, FIRST_BATCH
    keyset = ""
    q = dict(p)
    while True:
        q["grep_batch"] = batch
        ids = db.all(
            "SELECT m.id, m.created_at FROM memories m WHERE m.source_id = %(grep_source)s "
            f"{keyset} {_ORDER} LIMIT %(grep_batch)s", q)
        if not ids:
            return _rows(db, hits), True
        q["grep_ids"] = [r["id"] for r in ids]
        # Ids and verdicts only: whole rows are read for the hits alone.
        for row in db.all(f"SELECT m.id, {recheck} AS grep_hit FROM memories m "
                          f"WHERE m.id = ANY(%(grep_ids)s) AND {where} {_ORDER}", q):
            if passed == budget:
                return _rows(db, hits), False
            passed += 1
            if row["grep_hit"]:
                hits.append(row["id"])
                if len(hits) == limit:
                    return _rows(db, hits), False
        if len(ids) < batch:
            return _rows(db, hits), True
        q.update(grep_at=ids[-1]["created_at"], grep_id=ids[-1]["id"])
        keyset = ("AND m.created_at <= %(grep_at)s AND "
                  "(m.created_at < %(grep_at)s OR m.id < %(grep_id)s)")
        batch = min(batch * 2, MAX_BATCH)


def _rows(db: PostgresEngine, ids: list[int]) -> list[Row]:
    """The rows of ``ids``, in that order (the walk's, newest first)."""
    if not ids:
        return []
    by_id = {r["id"]: r for r in db.all("SELECT m.* FROM memories m WHERE m.id = ANY(%s)",
                                        (ids,))}
    return [by_id[i] for i in ids]

"""Substring recall over ``memories`` through the FTS5 trigram table (migration 0013).

``store/sql/substring.py`` states the rule; this is its SQLite mechanics. The
trigram table folds case per Unicode, a superset of SQLite's ASCII-only
``lower()``, so every query rechecks ``instr(lower(text), ...)``: the rows
returned are exactly those the old full scan returned, in the same order.

A needle of three or more characters first reads up to ``BATCH`` index
matches: when that is all of them (a rare needle), they are the candidates.
Otherwise the newest ``NEWEST`` (at least 4 x limit) matches by id are
read, and they are the answer when they yield ``limit`` hits and no unread match can be
newer (``_newer_unread``: ids and ``created_at`` rise together in a brain
written through one clock, checked, never assumed). Otherwise every match
is read: the cost follows the matches, never the table. A shorter needle
walks the newest ``SHORT_WINDOW`` rows passing the other filters and stops
at ``limit`` hits (``store/sql/substring.py``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from brainkeep.store.sql.substring import SHORT_WINDOW, indexed
from brainkeep.store.sqlite.engine import SQLiteEngine

# Index matches read per batch (a frequent needle fills the limit within one).
BATCH = 1_000
# Newest matches read first for a frequent needle (at least 4 x limit).
NEWEST = 200
_ORDER = "ORDER BY {t}.created_at DESC, {t}.id DESC"


def _match_expression(needles: Sequence[str]) -> str:
    """An FTS5 query matching every row that holds any needle (and a few more).

    Each needle becomes an AND of non-overlapping trigrams covering it (plus
    its last trigram): every text holding the needle holds them all, and a
    third of the phrase's terms costs a third of its doclist reads (the
    common trigrams of a needle dominate a phrase query). The recheck drops
    the extra rows.
    """
    def cover(needle: str) -> str:
        grams = [needle[i:i + 3] for i in range(0, len(needle) - 2, 3)]
        if len(needle) % 3:
            grams.append(needle[-3:])
        return "(" + " AND ".join('"' + g.replace('"', '""') + '"' for g in grams) + ")"

    return " OR ".join(cover(n) for n in needles)


def _recheck(t: str, count: int, lower_needles: bool) -> str:
    needle = "lower(:grep{})" if lower_needles else ":grep{}"
    return "(" + " OR ".join(
        f"instr(lower({t}.text), {needle.format(i)}) > 0" for i in range(count)) + ")"


def grep_memories(
    db: SQLiteEngine,
    where: str,
    params: dict[str, Any],
    needles: Sequence[str],
    limit: int,
    *,
    source_id: str,
    lower_needles: bool = True,
) -> list[sqlite3.Row]:
    """Rows of ``memories m`` passing ``where`` whose text holds any needle, newest first.

    Args:
        db: the engine.
        where: WHERE fragment on alias ``m`` (read scope, lifecycle, filters).
        params: its named parameters (not modified).
        needles: substrings, any of which selects a row.
        limit: rows to return at most.
        source_id: the source ``where`` selects (the walk reads its index newest first).
        lower_needles: fold the needles with SQLite ``lower()`` (False: the
            caller folded them already, as ``memories_matching_terms`` does).
    """
    p = dict(params)
    p.update({f"grep{i}": needle for i, needle in enumerate(needles)})
    p.update(grep_source=source_id, grep_limit=limit)
    recheck = _recheck("m", len(needles), lower_needles)
    order = _ORDER.format(t="m")
    if not indexed(needles):
        # The window is a co-routine read newest first; the outer query keeps
        # its order (no second sort) and stops at the limit.
        p["grep_window"] = SHORT_WINDOW
        return db.all(
            f"SELECT m.* FROM (SELECT m.* FROM memories m WHERE m.source_id = :grep_source "
            f"AND {where} {order} LIMIT :grep_window) m WHERE {recheck} LIMIT :grep_limit", p)
    p.update(grep_match=_match_expression(needles), grep_batch=BATCH)
    # CROSS JOIN keeps SQLite's join order: the index matches drive, rows are
    # looked up by id (otherwise the planner may walk the source's rows and
    # test each against the match list).
    matches = ("SELECT m.* FROM ({}) g CROSS JOIN memories m ON m.id = g.id "
               f"WHERE {where} AND {recheck} {order} LIMIT :grep_limit")
    # Ascending rowids are the index's cheapest read: a rare needle is answered
    # from this probe alone.
    ids = [r[0] for r in db.all(
        "SELECT rowid FROM memories_grep WHERE memories_grep MATCH :grep_match "
        "LIMIT :grep_batch + 1", p)]
    if len(ids) <= BATCH:
        p["grep_ids"] = json.dumps(ids)
        return db.all(matches.format("SELECT value AS id FROM json_each(:grep_ids)"), p)
    # A frequent needle: its newest few hundred matches usually hold the limit.
    p["grep_batch"] = min(BATCH, max(NEWEST, 4 * limit))
    ids = [r[0] for r in db.all(
        "SELECT rowid FROM memories_grep WHERE memories_grep MATCH :grep_match "
        "ORDER BY rowid DESC LIMIT :grep_batch", p)]
    p["grep_ids"] = json.dumps(ids)
    rows = db.all(matches.format("SELECT value AS id FROM json_each(:grep_ids)"), p)
    if len(rows) == limit and not _newer_unread(db, source_id, rows[-1], ids[-1]):
        return rows
    return db.all(matches.format(
        "SELECT rowid AS id FROM memories_grep WHERE memories_grep MATCH :grep_match"), p)


def _newer_unread(db: SQLiteEngine, source_id: str, last: sqlite3.Row, below_id: int) -> bool:
    """Whether a row with id < ``below_id`` sorts before ``last`` (newest first).

    Reads the ``memories_created`` index only, from ``last``'s ``created_at``
    on: about as many entries as rows newer than the last hit.
    """
    return db.scalar(
        "SELECT EXISTS (SELECT 1 FROM memories WHERE source_id = :s AND created_at >= :c "
        "AND id < :below AND (created_at > :c OR id > :id))",
        {"s": source_id, "c": last["created_at"], "below": below_id, "id": last["id"]},
    ) == 1

"""What BM25 weighs terms by on PostgreSQL: per-term row counts and per-table statistics.

A term's count is the number of rows whose ``tsv`` holds it (every source,
like SQLite's fts5vocab). Counting visits every matching row, which for a
common word is thousands of heap fetches per query. So a term of one
lexeme that the table's statistics (``pg_stats.most_common_elems``, kept
by ANALYZE and autovacuum) put at ``ESTIMATE_FROM`` rows or more is not
counted: its count is its sampled fraction of rows times the live row
count. A term's lexemes come from the server (its Snowball stemmer), once.
The counts only weigh terms (they never decide what matches), and at that
size an estimate moves an idf by a percent or so; rarer words, phrases,
and tables never analysed are counted exactly. Counts are cached briefly.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from brainkeep.store.postgres.engine import PostgresEngine

# The text search configuration of the tsv columns (migration 0011: 'simple'
# plus Snowball English stems, no stopwords): queries must use the same.
TS_CONFIG = "brainkeep"
TERM_CACHE_SECONDS = 30.0
TERM_CACHE_SIZE = 50_000
# kind -> the table whose tsv column it searches.
TABLES = {"chunk": "chunks", "memory": "memories", "page": "pages"}
# N and the average row length change slowly; recomputing them scans the table.
STATS_SECONDS = 60.0
# Terms the statistics put at this many rows or more are estimated, not counted.
ESTIMATE_FROM = 2_000


@dataclass(frozen=True)
class TableStats:
    """What BM25 needs of a whole index: rows holding text, their mean length."""

    rows: int
    mean_length: float


def idf(rows: int, matches: int) -> float:
    """FTS5's inverse document frequency (floored at 1e-6 for very common terms)."""
    return max(math.log((rows - matches + 0.5) / (matches + 0.5)), 1e-6)


def bound(params: list[Any]) -> Any:
    """A ``bind`` for SQL built here: appends the value, returns a positional placeholder."""
    def bind(value: Any) -> str:
        params.append(value)
        return "%s"
    return bind


class TermStats:
    """Cached term counts and table statistics of the three keyword indexes."""

    def __init__(self, db: PostgresEngine, *, estimate_from: int = ESTIMATE_FROM) -> None:
        self.db = db
        self.estimate_from = estimate_from
        # (kind, term) -> (expiry, count, the cap it was counted under or None)
        self._counts: dict[tuple[str, str], tuple[float, int, int | None]] = {}
        self._stats: dict[str, tuple[float, TableStats]] = {}
        self._commons: dict[str, tuple[float, dict[str, float]]] = {}
        self._lexeme_cache: dict[str, tuple[str, ...]] = {}

    def term_doc_counts(self, kind: str, terms: list[str], *,
                        cap: int | None = None) -> dict[str, int]:
        """How many rows of ``kind`` hold each term; cached.

        With ``cap``, a count stops there: a term counted ``cap`` holds at
        least that many rows (cheap to tell for a common term, which would
        otherwise have every match visited).
        """
        cache = self._counts
        now = time.monotonic()
        found: dict[str, int] = {}
        for t in terms:
            hit = cache.get((kind, t))
            # A capped count answers an exact question only when under its cap.
            if hit is not None and hit[0] > now and (hit[2] is None or hit[1] < hit[2] or (
                    cap is not None and hit[2] >= cap)):
                found[t] = hit[1] if cap is None else min(hit[1], cap)
        missing = [t for t in terms if t not in found]
        if missing:
            if len(cache) > TERM_CACHE_SIZE:
                cache.clear()
            for term, count in zip(missing, self._count(kind, missing, cap), strict=True):
                # Zeros are cached too: the plan keeps a zero-count term (a
                # term just written still matches), only its weight is stale.
                found[term] = count
                cache[(kind, term)] = (now + TERM_CACHE_SECONDS, count, cap)
        return found

    def _count(self, kind: str, terms: list[str], cap: int | None) -> list[int]:
        """Each term's count: estimated from the statistics when common, else counted."""
        rows = self.stats(kind).rows
        common = self._common(kind)
        lexemes = self._lexemes(terms)
        # An estimate stands in for a capped count only well above the cap.
        estimate_from = max(self.estimate_from, 2 * cap) if cap is not None else self.estimate_from
        known: dict[str, int] = {}
        for t in terms:
            words = lexemes[t]
            if not words:  # nothing to match (the parser kept no lexeme)
                known[t] = 0
            elif len(words) == 1 and common.get(words[0], 0.0) * rows >= estimate_from:
                known[t] = cap if cap is not None else min(round(common[words[0]] * rows), rows)
        counted = [t for t in terms if t not in known]
        if counted:
            params: list[Any] = []
            bind = bound(params)
            limit = "" if cap is None else f" LIMIT {int(cap)}"
            row = self.db.one("SELECT " + ", ".join(
                f"(SELECT COUNT(*) FROM (SELECT 1 FROM {TABLES[kind]} WHERE tsv @@ "
                f"phraseto_tsquery('{TS_CONFIG}', {bind(t)}){limit}) s)" for t in counted), params)
            assert row is not None
            known.update(zip(counted, (int(v) for v in row), strict=True))
        return [known[t] for t in terms]

    def _lexemes(self, terms: list[str]) -> dict[str, tuple[str, ...]]:
        """What the tsv columns' configuration makes of each term (fixed: cached for good)."""
        cache = self._lexeme_cache
        unknown = [t for t in terms if t not in cache]
        if unknown:
            params: list[Any] = []
            bind = bound(params)
            row = self.db.one("SELECT " + ", ".join(
                f"tsvector_to_array(to_tsvector('{TS_CONFIG}', {bind(t)}::text))"
                for t in unknown), params)
            assert row is not None
            if len(cache) > TERM_CACHE_SIZE:
                cache.clear()
            cache.update(zip(unknown, (tuple(v) for v in row), strict=True))
        return {t: cache[t] for t in terms}

    def _common(self, kind: str) -> dict[str, float]:
        """The table's most common lexemes and the fraction of rows holding each (ANALYZE's sample).

        Empty until the table is first analysed; refreshed with the table statistics.
        """
        now = time.monotonic()
        hit = self._commons.get(kind)
        if hit is not None and hit[0] > now:
            return hit[1]
        row = self.db.one(
            "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
            "WHERE schemaname = current_schema() AND tablename = %s AND attname = 'tsv'",
            (TABLES[kind],))
        # The frequencies end with three summary values (min, max, nulls).
        common = dict(zip(row[0], row[1], strict=False)) if row and row[0] else {}
        self._commons[kind] = (now + STATS_SECONDS, common)
        return common

    def stats(self, kind: str) -> TableStats:
        """Rows holding text and their mean length in ``kind``'s index (every source); cached.

        Like the term counts, they only weigh terms: a minute of staleness
        moves scores a little and never what matches.
        """
        now = time.monotonic()
        hit = self._stats.get(kind)
        if hit is not None and hit[0] > now:
            return hit[1]
        row = self.db.one(f"SELECT COUNT(*), COALESCE(AVG(length(tsv)), 0) FROM {TABLES[kind]} "
                          "WHERE tsv IS NOT NULL")
        assert row is not None
        stats = TableStats(int(row[0]), float(row[1]))
        self._stats[kind] = (now + STATS_SECONDS, stats)
        return stats

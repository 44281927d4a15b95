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
        """Each term's count: estimated from the statistics when common, else counted.

        One statement at most: a term whose lexemes are not cached yet gets
        them from the server in the same statement, which counts it only
        if they are not one common lexeme.
        """
        rows = self.stats(kind).rows
        fractions = self._common(kind)
        # An estimate stands in for a capped count only well above the cap.
        estimate_from = max(self.estimate_from, 2 * cap) if cap is not None else self.estimate_from
        common = {w for w, f in fractions.items() if f * rows >= estimate_from}

        def estimate(words: tuple[str, ...]) -> int | None:
            if not words:  # the parser kept no lexeme: nothing can match
                return 0
            if len(words) == 1 and words[0] in common:
                return cap if cap is not None else min(round(fractions[words[0]] * rows), rows)
            return None

        cache = self._lexeme_cache
        found = {t: n for t in terms if t in cache and (n := estimate(cache[t])) is not None}
        counted = [t for t in terms if t not in found and t in cache]
        unknown = [t for t in terms if t not in cache]
        if counted or unknown:
            counts, looked_up = self._query(kind, counted, unknown, cap, common)
            found.update(counts)
            if len(cache) > TERM_CACHE_SIZE:
                cache.clear()
            for t, (words, n) in looked_up.items():
                cache[t] = words
                # None: one common lexeme, which the statement left to the estimate.
                found[t] = n if n is not None else estimate(words) or 0
        return [found[t] for t in terms]

    def _query(self, kind: str, counted: list[str], unknown: list[str], cap: int | None,
               common: set[str]) -> tuple[dict[str, int],
                                          dict[str, tuple[tuple[str, ...], int | None]]]:
        """Counts of ``counted``; lexemes of ``unknown`` and their counts (None: common)."""
        table, limit = TABLES[kind], "" if cap is None else f" LIMIT {int(cap)}"
        # Placeholders in the select list come before those in FROM.
        select: list[Any] = []
        from_: list[Any] = []
        in_select, in_from = bound(select), bound(from_)

        def count(term: str) -> str:
            return (f"(SELECT COUNT(*) FROM (SELECT 1 FROM {table} WHERE tsv @@ "
                    f"phraseto_tsquery('{TS_CONFIG}', {in_select(term)}){limit}) s)")

        items = [count(t) for t in counted]
        sources = [f"(SELECT {in_from(sorted(common))}::text[] AS common) k"] if unknown else []
        for i, t in enumerate(unknown):
            sources.append(f"(SELECT tsvector_to_array(to_tsvector('{TS_CONFIG}', "
                           f"{in_from(t)}::text)) AS lex) u{i}")
            items.append(f"u{i}.lex")
            items.append(f"CASE WHEN cardinality(u{i}.lex) = 1 AND u{i}.lex[1] = ANY(k.common) "
                         f"THEN NULL ELSE {count(t)} END")
        where = f" FROM {', '.join(sources)}" if sources else ""
        row = self.db.one(f"SELECT {', '.join(items)}{where}", select + from_)
        assert row is not None
        rest = row[len(counted):]
        return ({t: int(v) for t, v in zip(counted, row, strict=False)},
                {t: (tuple(rest[2 * i]), None if rest[2 * i + 1] is None else int(rest[2 * i + 1]))
                 for i, t in enumerate(unknown)})

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

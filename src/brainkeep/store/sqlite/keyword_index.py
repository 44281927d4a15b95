"""The keyword half of SQLite's SearchIndex: FTS5 MATCH planning and BM25 reads.

Core hands over analysed terms (``core.query.QueryTerms``); this module turns
them into FTS5 queries (each term quoted, so user text never reaches FTS5
syntax), plans any-term queries by document frequency (``fts5vocab``) within
the caller's row budget, and bounds BM25 work by rowid floors. Every read
returns ids and scores only: ranking happens in core, and only the final
results are read in full.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.query import QueryTerms
from brainkeep.core.retrieval import FactFilter, ScoredId
from brainkeep.store.sql.dialect import SQLITE
from brainkeep.store.sql.filters import fact_filter_sql, memory_filter_sql
from brainkeep.store.sql.rows import memory_from_row
from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.stems import TermStems, shared_stems

TERM_CACHE_SECONDS = 30.0
TERM_CACHE_SIZE = 50_000
# The first pool of FTS hits gRPC recall ranks before applying visibility.
LEXICAL_POOL = 40
_FTS_OF = {"chunk": "chunks_fts", "memory": "memories_fts", "page": "pages_fts"}


def or_query(terms: list[str] | tuple[str, ...]) -> str:
    """OR of quoted terms (quoting keeps FTS5 syntax out of user text)."""
    return " OR ".join(f'"{term}"' for term in terms)


def and_query(terms: list[str] | tuple[str, ...]) -> str:
    """AND of quoted terms: the strict (all-terms) match."""
    return " AND ".join(f'"{term}"' for term in terms)


@dataclass(frozen=True)
class KeywordPlan:
    """What a keyword read asks FTS5: a MATCH string, and a bound on rows ranked."""

    fts: str
    newest: int | None  # rank only the newest N matches (None: all)


def keyword_plan(
    terms: list[str] | tuple[str, ...], doc_counts: dict[str, int], budget: int
) -> KeywordPlan:
    """The rarest terms, adding commoner ones while their matches stay within ``budget``.

    The rarest indexed term is always kept; terms the index does not hold
    cannot match and are dropped. On a brain smaller than the budget nothing
    is ever dropped. When even the rarest term matches more rows than the
    budget, only the newest ``budget`` of its matches are ranked: BM25 over a
    term that common is nearly flat (low idf), and recency is the better
    tie-break for memory.
    """
    chosen: list[str] = []
    total = 0
    for term in sorted(terms, key=lambda t: doc_counts.get(t, 0)):
        count = doc_counts.get(term, 0)
        if count == 0:
            continue
        if chosen and total + count > budget:
            break
        chosen.append(term)
        total += count
    return KeywordPlan(or_query(chosen), budget if total > budget else None)


class KeywordIndex:
    """BM25 reads over ``chunks_fts``, ``pages_fts`` and ``memories_fts`` of one source."""

    def __init__(
        self, db: SQLiteEngine, source_id: str, stems: TermStems | None = None
    ) -> None:
        self.db = db
        self.source_id = source_id
        self.stems = stems or shared_stems()
        self._term_counts: dict[tuple[str, str], tuple[float, int]] = {}

    def plan(self, kind: str, terms: QueryTerms) -> KeywordPlan:
        """The FTS5 query for ``terms`` against the index of ``kind``."""
        words = self.distinct_stems(terms.terms)
        if terms.require_all:
            return KeywordPlan(and_query(words), None)
        if terms.row_budget is None:
            return KeywordPlan(or_query(words), None)
        counts = self.term_doc_counts(kind, words)
        return keyword_plan(words, counts, terms.row_budget)

    def distinct_stems(self, words: tuple[str, ...]) -> list[str]:
        """``words`` less those indexed as an earlier word is ("run" after "running").

        FTS5 stems the quoted words of a MATCH itself; two words of one stem
        would count that stem twice in BM25.
        """
        seen: set[tuple[str, ...]] = set()
        kept: list[str] = []
        for word, tokens in self.stems.tokens(words).items():
            if tokens not in seen:
                seen.add(tokens)
                kept.append(word)
        return kept

    # -- document frequencies ---------------------------------------------------

    def term_doc_counts(self, kind: str, terms: list[str]) -> dict[str, int]:
        """How many rows of the full-text index of ``kind`` contain each term."""
        if not terms:
            return {}
        # Counts only steer how many terms an any-term query ORs together, so
        # a few seconds of staleness is harmless; they are cached per term to
        # keep the vocabulary lookups off the query path.
        cache = self._term_counts
        now = time.monotonic()
        found = {t: hit[1] for t in terms if (hit := cache.get((kind, t))) and hit[0] > now}
        missing = [t for t in terms if t not in found]
        if missing:
            fresh = self._read_doc_counts(kind, missing)
            if len(cache) > TERM_CACHE_SIZE:
                cache.clear()
            for term in missing:
                found[term] = count = fresh.get(term, 0)
                # A zero is never cached: a term just written must match at once.
                if count:
                    cache[(kind, term)] = (now + TERM_CACHE_SECONDS, count)
        return found

    def _read_doc_counts(self, kind: str, terms: list[str]) -> dict[str, int]:
        # The vocabulary holds what the tokenizer indexed (stems), so each
        # word is looked up as its stem(s); a word the tokenizer splits
        # ("foo_bar", matched as a phrase) can match no more rows than its
        # rarest part.
        tokens = self.stems.tokens(terms)
        wanted = sorted({t for parts in tokens.values() for t in parts})
        if not wanted:
            return {}
        table = f"{_FTS_OF[kind]}_terms"
        sql = f"SELECT term, doc FROM {table} WHERE term IN ({','.join('?' * len(wanted))})"
        # The fts5vocab views come from migrations 0007/0011 (never created on a query path).
        docs = {r[0]: int(r[1]) for r in self.db.all(sql, tuple(wanted))}
        return {
            word: min(docs.get(t, 0) for t in parts)
            for word, parts in tokens.items() if parts
        }

    def _rowid_floor(self, table: str, fts_query: str, newest: int | None) -> int:
        """The rowid of the ``newest``-th newest match (0: rank every match).

        Walking a term's document list in rowid order costs no scoring, so
        this bounds BM25 work for terms that match a large share of the index.
        """
        if not newest:
            return 0
        floor = self.db.scalar(
            f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC "
            "LIMIT 1 OFFSET ?",
            (fts_query, newest - 1),
        )
        return int(floor or 0)

    # -- reads ------------------------------------------------------------------

    def chunks(
        self, plan: KeywordPlan, *, include_private: bool, limit: int
    ) -> list[ScoredId]:
        """Chunks by BM25 (best first); ``score`` is the positive BM25.

        The top rows are picked inside FTS5 first and joined afterwards (the
        join per match is what costs when a term matches thousands of chunks);
        the over-fetch leaves room for rows the source/privacy filter drops.
        With ``plan.newest``, only the newest that many matches are ranked.
        """
        if not plan.fts:
            return []
        # bm25() rather than the `rank` column (the same function, no rank is
        # configured): ORDER BY rank takes FTS5's sorter subquery, which cost
        # ~1.8 ms more per query on the 200K corpus, whatever the rows ranked.
        floor = self._rowid_floor("chunks_fts", plan.fts, plan.newest)
        privacy = "" if include_private else "AND p.visibility = 'world'"
        rows = self.db.all(
            "SELECT c.id, c.page_id, f.score FROM (SELECT rowid, bm25(chunks_fts) AS score "
            "FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid >= ? ORDER BY score LIMIT ?) f "
            "JOIN chunks c ON c.id = f.rowid JOIN pages p ON p.id = c.page_id "
            f"WHERE p.source_id = ? AND p.deleted_at IS NULL {privacy} ORDER BY f.score LIMIT ?",
            (plan.fts, floor, limit * 2 + 20, self.source_id, limit),
        )
        return [ScoredId(int(r[0]), int(r[1]), -float(r[2])) for r in rows]

    def titles(
        self, plan: KeywordPlan, *, include_private: bool, limit: int
    ) -> list[ScoredId]:
        """Pages whose title or aliases match, by BM25 (title weighted 2:1 over aliases)."""
        if not plan.fts:
            return []
        privacy = "" if include_private else "AND p.visibility = 'world'"
        rows = self.db.all(
            "SELECT p.id, f.score FROM (SELECT rowid, bm25(pages_fts, 2.0, 1.0) AS score "
            "FROM pages_fts WHERE pages_fts MATCH ? AND rowid >= ? ORDER BY score LIMIT ?) f "
            "JOIN pages p ON p.id = f.rowid "
            f"WHERE p.source_id = ? AND p.deleted_at IS NULL {privacy} ORDER BY f.score LIMIT ?",
            (plan.fts, self._rowid_floor("pages_fts", plan.fts, plan.newest), limit * 2 + 10,
             self.source_id, limit),
        )
        return [ScoredId(int(r[0]), int(r[0]), -float(r[1])) for r in rows]

    def facts(self, plan: KeywordPlan, filt: FactFilter, *, limit: int) -> list[ScoredId]:
        """Ids of facts matching ``plan`` and every filter, by BM25 (best first).

        Without narrowing filters the top rows are picked inside FTS5 first
        (over-fetched for the privacy/activity filter), and ``plan.newest``
        bounds the rows ranked, as for chunks.
        """
        if not plan.fts:
            return []
        where, params = fact_filter_sql(self.source_id, filt, "m.", dialect=SQLITE)
        if filt.narrowed:
            rows = self.db.all(
                "SELECT m.id, bm25(memories_fts) AS score FROM memories_fts "
                "JOIN memories m ON m.id = memories_fts.rowid "
                f"WHERE memories_fts MATCH ? AND {where} ORDER BY score LIMIT ?",
                (plan.fts, *params, limit),
            )
        else:
            rows = self.db.all(
                "SELECT m.id, f.score FROM (SELECT rowid, bm25(memories_fts) AS score "
                "FROM memories_fts WHERE memories_fts MATCH ? AND rowid >= ? "
                "ORDER BY score LIMIT ?) f "
                f"JOIN memories m ON m.id = f.rowid WHERE {where} ORDER BY score LIMIT ?",
                (plan.fts, self._rowid_floor("memories_fts", plan.fts, plan.newest),
                 limit * 3 + 20, *params, limit),
            )
        return [ScoredId(int(r[0]), 0, -float(r[1])) for r in rows]

    def memories(self, plan: KeywordPlan, filt: MemoryFilter, *, limit: int) -> list[ScoredId]:
        """Memories ``filt.reader`` may recall, by BM25 (live rows only), best first.

        Ranks a pool of FTS hits first and applies visibility to the pool
        only: joining every match to ``memories`` (and its ACL subqueries)
        before ranking costs ~4x more on common words. The pool grows while
        fewer than ``limit`` readable hits came out of a full pool.
        """
        if not plan.fts:
            return []
        where, params = memory_filter_sql(filt, SQLITE)
        query: dict[str, Any] = {**params, "q": plan.fts, "limit": limit}
        pool = max(limit * 4, LEXICAL_POOL)
        while True:
            query["pool"] = pool
            rows = self.db.all(
                "SELECT m.*, h.rank AS fts_rank FROM (SELECT rowid, bm25(memories_fts) AS rank "
                "FROM memories_fts WHERE memories_fts MATCH :q ORDER BY rank LIMIT :pool) h "
                f"JOIN memories m ON m.id = h.rowid WHERE {where} "
                "ORDER BY h.rank, m.id DESC LIMIT :limit",
                query,
            )
            if len(rows) >= limit or self.db.scalar(
                "SELECT count(*) FROM (SELECT rowid FROM memories_fts "
                "WHERE memories_fts MATCH :q LIMIT :pool)", {"q": plan.fts, "pool": pool},
            ) < pool:
                return [ScoredId(int(r["id"]), 0, -float(r["fts_rank"]), memory_from_row(r))
                        for r in rows]
            pool *= 8

"""The keyword half of PostgreSQL's SearchIndex: tsvector matches ranked in the database.

Core hands over analysed terms (``core.query.QueryTerms``). Each term
becomes ``phraseto_tsquery('brainkeep', term)`` (bound as a parameter, so user
text never reaches tsquery syntax; a term the parser splits, ``foo_bar``,
matches as a phrase, as a quoted FTS5 term does); ``every()`` ANDs them
(``&&``), ``any()`` ORs them (``||``). No prefix matching (SQLite has none
either). Rows match through the generated ``tsv`` columns and their GIN
indexes (migrations 0001 and 0011: accents folded, words stemmed).

Ranking: Okapi BM25 computed in SQL, as SQLite's FTS5 ``bm25()`` ranks
(k1 1.2, b 0.75, FTS5's idf with its floor). ``ts_rank_cd`` alone has no
term rarity: on the retrieval eval it ranked a common word's match above a
rare one's. Per matched row and term, ``ts_rank_cd`` of that one term with
unit weights is the term's frequency (its number of covers); the idf comes
from the per-term document counts, and N and the average length from
``TableStats`` (both cached, ``term_stats.py``). Lengths are distinct lexemes
(``length(tsv)``), FTS5's are tokens: close for short chunks and facts.
Pages weight a title occurrence 2:1 over an alias one (SQLite's
``bm25(pages_fts, 2.0, 1.0)``). Any-term queries with a ``row_budget`` are
planned by document frequency like SQLite's (``keyword_plan``): the rarest
terms first, and only the newest matches of a term matching more rows than
the budget are ranked.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.query import QueryTerms
from brainkeep.core.retrieval import FactFilter, ScoredId
from brainkeep.store.postgres.columns import memory_columns
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.filters import fact_filter_sql, memory_filter_sql
from brainkeep.store.postgres.term_stats import (
    TERM_CACHE_SECONDS,
    TERM_CACHE_SIZE,
    TS_CONFIG,
    TableStats,
    TermStats,
    bound,
    idf,
)
from brainkeep.store.sql.rows import memory_from_row

# BM25 parameters (FTS5's, fixed there too).
K1, B = 1.2, 0.75
# ts_rank_cd weights {D, C, B, A} (each at most 1) times a factor give the
# term frequency: unit weights for chunks and facts; pages count a title
# occurrence (A) 2, an alias one (B) 1.
_TF_WEIGHTS = {"page": ("{0.5, 0.5, 0.5, 1.0}", 2.0)}
_UNIT_WEIGHTS = ("{1, 1, 1, 1}", 1.0)
# A BM25 score is 0 when every idf is floored; scores stay positive.
_EPSILON = 1e-9


def bm25_sql(kind: str, alias: str, idfs: dict[int, float], stats: TableStats) -> str:
    """The BM25 score of row ``alias`` for the per-term tsqueries ``qq.q0``, ``qq.q1``, ...

    Each term adds ``idf * (k1 + 1) * tf / (tf + norm)``, written
    ``idf * (k1 + 1) * (1 - norm / (tf + norm))`` so ``tf`` (one
    ``ts_rank_cd`` call) is computed once. ``idfs`` maps a term's index in
    ``qq`` to its idf; a term left out adds nothing. They are floats this
    module computed and the other constants are its own: never user input.
    """
    weights, factor = _TF_WEIGHTS.get(kind, _UNIT_WEIGHTS)
    # float8 literals: a bare 0.3 is numeric, and numeric arithmetic per row
    # costs more than the ranking itself.
    norm = (f"({K1 * (1 - B)!r}::float8 + {K1 * B / max(stats.mean_length, 1.0)!r}::float8 "
            f"* length({alias}.tsv))")
    parts = [
        f"{w * (K1 + 1)!r}::float8 * (1 - {norm} / ({factor!r}::float8 * "
        f"ts_rank_cd('{weights}'::real[], {alias}.tsv, qq.q{i}) + {norm}))"
        for i, w in idfs.items()
    ]
    return "(" + (" + ".join(parts) or "0::float8") + ")"


@dataclass(frozen=True)
class TsPlan:
    """What a keyword read asks: terms, how they combine, and a bound on rows ranked."""

    terms: tuple[str, ...]
    require_all: bool = False
    newest: int | None = None  # rank only the newest N matches (None: all)
    # The terms whose matches place the newest-N floor: those counted in some
    # row. A term counted in none adds no old rows, so leaving it out keeps
    # the floor sound and lets one cached floor serve every query with the
    # common term (the floor query visits all of its matches).
    floor_terms: tuple[str, ...] = ()

    def tsquery(self, bind: Any) -> str:
        """The tsquery expression, each term bound through ``bind``."""
        op = " && " if self.require_all else " || "
        return "(" + op.join(f"phraseto_tsquery('{TS_CONFIG}', {bind(t)})"
                             for t in self.terms) + ")"

    def queries(self, bind: Any) -> str:
        """The FROM item ``qq``: each term's tsquery ``q0``, ``q1``, ... and their match ``q``.

        Each term is bound once; BM25 scores the terms one by one.
        """
        op = " && " if self.require_all else " || "
        each = ", ".join(f"phraseto_tsquery('{TS_CONFIG}', {bind(t)}) AS q{i}"
                         for i, t in enumerate(self.terms))
        match = op.join(f"q{i}" for i in range(len(self.terms)))
        names = ", ".join(f"q{i}" for i in range(len(self.terms)))
        return f"(SELECT {match} AS q, {names} FROM (SELECT {each}) t) qq"


def keyword_plan(terms: tuple[str, ...], doc_counts: dict[str, int], budget: int) -> TsPlan:
    """The rarest terms, adding commoner ones while their matches stay within ``budget``.

    SQLite's rule (``store/sqlite/keyword_index.py``), except that a term
    counted 0 is kept rather than dropped: it costs the match nothing, and
    here counts are cached, so the term may have been written since.
    """
    chosen: list[str] = []
    total = 0
    for term in sorted(terms, key=lambda t: doc_counts.get(t, 0)):
        count = doc_counts.get(term, 0)
        if total and total + count > budget:
            break
        chosen.append(term)
        total += count
    if total <= budget:
        return TsPlan(tuple(chosen))
    return TsPlan(tuple(chosen), False, budget,
                  tuple(t for t in chosen if doc_counts.get(t, 0)) or tuple(chosen))


class TsKeyword:
    """Keyword reads over ``chunks.tsv``, ``pages.tsv`` and ``memories.tsv`` of one source."""

    def __init__(self, db: PostgresEngine, source_id: str) -> None:
        self.db = db
        self.source_id = source_id
        self.counts = TermStats(db)
        # (table, terms, newest) -> (expiry, floor id)
        self._floors: dict[tuple[str, tuple[str, ...], int], tuple[float, int]] = {}

    def plan(self, kind: str, terms: QueryTerms) -> TsPlan:
        if terms.require_all or terms.row_budget is None:
            return TsPlan(terms.terms, terms.require_all)
        # The plan only needs to know which terms fit the budget: counting a
        # common term up to budget + 1 is enough (counting all of its
        # matches visits every one of them), unless every term is that
        # common and the rarest must be told apart.
        cap = terms.row_budget + 1
        counts = self.counts.term_doc_counts(kind, list(terms.terms), cap=cap)
        if min(counts.values(), default=0) >= cap:
            counts = self.counts.term_doc_counts(kind, list(terms.terms))
        return keyword_plan(terms.terms, counts, terms.row_budget)

    def _scored(self, kind: str, alias: str, plan: TsPlan, cap: int | None = None) -> str:
        """The BM25 score expression of ``plan`` for row ``alias`` (over ``qq``).

        ``cap``: counts may stop there (``term_doc_counts``), for a list
        whose scores only rank against each other.
        """
        counts = self.counts.term_doc_counts(kind, list(plan.terms), cap=cap)
        stats = self.counts.stats(kind)
        rows = max([stats.rows, *counts.values()])
        # A term no row held when counted adds nothing to any score: it is
        # still matched (it may have been written since) but not scored,
        # which saves a ts_rank_cd call per matched row.
        idfs = {i: idf(rows, counts[t]) for i, t in enumerate(plan.terms) if counts.get(t)}
        return bm25_sql(kind, alias, idfs, stats)

    def _floor(self, table: str, plan: TsPlan) -> int:
        """The id of the ``plan.newest``-th newest match (0: rank every match); cached.

        Finding it visits every match of a common term. A cached floor stays
        a sound bound: rows written since have higher ids and are ranked
        too, so a stale floor only ranks a few more than ``newest`` rows.
        """
        if not plan.newest:
            return 0
        terms = plan.floor_terms or plan.terms
        key = (table, terms, plan.newest)
        now = time.monotonic()
        hit = self._floors.get(key)
        if hit is not None and hit[0] > now:
            return hit[1]
        params: list[Any] = []
        q = TsPlan(terms).tsquery(bound(params))
        floor = int(self.db.scalar(
            f"SELECT id FROM {table} WHERE tsv @@ {q} ORDER BY id DESC OFFSET %s LIMIT 1",
            (*params, plan.newest - 1),
        ) or 0)
        if len(self._floors) > TERM_CACHE_SIZE:
            self._floors.clear()
        self._floors[key] = (now + TERM_CACHE_SECONDS, floor)
        return floor

    # -- reads ------------------------------------------------------------------

    def chunks(self, plan: TsPlan, *, include_private: bool, limit: int) -> list[ScoredId]:
        """Chunks of live (and, unless ``include_private``, world) pages, best first."""
        if not plan.terms:
            return []
        floor = self._floor("chunks", plan)
        params: list[Any] = []
        # A term of a budgeted plan holding more rows than the budget is the
        # only one scored (keyword_plan stops after it), so its idf is one
        # factor on every score of the list, and chunk lists are normalised
        # per list (core/fusion.py): its exact count changes no ranking.
        score = self._scored("chunk", "c", plan, cap=None if plan.newest is None
                             else plan.newest + 1)
        privacy = "" if include_private else "AND p.visibility = 'world'"
        # As on SQLite: the top chunks are ranked first and joined afterwards
        # (a page lookup per match is what costs on a common term), with an
        # over-fetch for the rows the source/privacy filter drops.
        rows = self.db.all(
            "SELECT f.id, f.page_id, f.score FROM (SELECT c.id, c.page_id, "
            f"{score} AS score FROM {plan.queries(bound(params))}, chunks c "
            "WHERE c.tsv @@ qq.q AND c.id >= %s ORDER BY score DESC, c.id LIMIT %s) f "
            "JOIN pages p ON p.id = f.page_id WHERE p.source_id = %s AND p.deleted_at IS NULL "
            f"{privacy} ORDER BY f.score DESC, f.id LIMIT %s",
            (*params, floor, limit * 2 + 20, self.source_id, limit),
        )
        return [ScoredId(int(r[0]), int(r[1]), float(r[2]) + _EPSILON) for r in rows]

    def titles(self, plan: TsPlan, *, include_private: bool, limit: int) -> list[ScoredId]:
        """Pages whose title or aliases match (title weighted 2:1 over aliases), best first."""
        if not plan.terms:
            return []
        floor = self._floor("pages", plan)
        params: list[Any] = []
        score = self._scored("page", "p", plan)
        privacy = "" if include_private else "AND p.visibility = 'world'"
        rows = self.db.all(
            f"SELECT p.id, {score} AS score "
            f"FROM {plan.queries(bound(params))}, pages p WHERE p.tsv @@ qq.q AND p.id >= %s "
            f"AND p.source_id = %s AND p.deleted_at IS NULL {privacy} "
            "ORDER BY score DESC, p.id LIMIT %s",
            (*params, floor, self.source_id, limit),
        )
        return [ScoredId(int(r[0]), int(r[0]), float(r[1]) + _EPSILON) for r in rows]

    def facts(self, plan: TsPlan, filt: FactFilter, *, limit: int) -> list[ScoredId]:
        """Ids of facts matching ``plan`` and every filter (read scope included), best first."""
        if not plan.terms:
            return []
        floor = 0 if filt.narrowed else self._floor("memories", plan)
        params: list[Any] = []
        score = self._scored("memory", "m", plan)
        head = plan.queries(bound(params))
        where, where_params = fact_filter_sql(self.source_id, filt, "m.")
        rows = self.db.all(
            f"SELECT m.id, {score} AS score "
            f"FROM {head}, memories m WHERE m.tsv @@ qq.q AND m.id >= %s "
            f"AND {where} ORDER BY score DESC, m.id DESC LIMIT %s",
            (*params, floor, *where_params, limit),
        )
        return [ScoredId(int(r[0]), 0, float(r[1]) + _EPSILON) for r in rows]

    def memories(self, plan: TsPlan, filt: MemoryFilter, *, limit: int) -> list[ScoredId]:
        """Memories ``filt``'s reader may recall (live rows only), best first, rows included."""
        if not plan.terms:
            return []
        where, params = memory_filter_sql(filt)
        score = self._scored("memory", "m", plan)
        params["limit"] = limit
        rows = self.db.all(
            f"SELECT {memory_columns('m')}, {score} AS ts_score "
            f"FROM {plan.queries(_named(params, 'q'))}, memories m WHERE m.tsv @@ qq.q AND {where} "
            "ORDER BY ts_score DESC, m.id DESC LIMIT %(limit)s",
            params,
        )
        return [ScoredId(int(r["id"]), 0, float(r["ts_score"]) + _EPSILON, memory_from_row(r))
                for r in rows]


def _named(params: dict[str, Any], prefix: str) -> Any:
    def bind(value: Any) -> str:
        name = f"{prefix}{len(params)}"
        params[name] = value
        return f"%({name})s"
    return bind

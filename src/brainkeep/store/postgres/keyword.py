"""The keyword half of PostgreSQL's SearchIndex: tsvector matches ranked in the database.

Core hands over analysed terms (``core.query.QueryTerms``). Each term
becomes ``phraseto_tsquery('simple', term)`` (bound as a parameter, so user
text never reaches tsquery syntax; a term the parser splits, ``foo_bar``,
matches as a phrase, as a quoted FTS5 term does); ``every()`` ANDs them
(``&&``), ``any()`` ORs them (``||``). No prefix matching (SQLite has none
either). Rows match through the generated ``tsv`` columns and their GIN
indexes (migration 0001).

Ranking: ``ts_rank_cd`` (cover density; pages weight the title 2:1 over
aliases, like SQLite's ``bm25(pages_fts, 2.0, 1.0)``). Any-term queries with
a ``row_budget`` are planned by document frequency like SQLite's
(``keyword_plan``): the rarest terms first, and only the newest matches of a
term matching more rows than the budget are ranked.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from brainkeep.core.mnemo.models import MemoryFilter
from brainkeep.core.query import QueryTerms
from brainkeep.core.retrieval import FactFilter, ScoredId
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.filters import fact_filter_sql
from brainkeep.store.postgres.mnemo import memory_filter_sql
from brainkeep.store.sqlite.rows import memory_from_row

TERM_CACHE_SECONDS = 30.0
TERM_CACHE_SIZE = 50_000
# kind -> (table, what makes a row of this source live): counted per term.
_TABLES = {"chunk": "chunks", "memory": "memories", "page": "pages"}
# ts_rank_cd weights {D, C, B, A}: title (A) 2:1 over aliases (B).
_PAGE_WEIGHTS = "{0.1, 0.2, 0.5, 1.0}"
# ts_rank_cd of a match can be 0 (e.g. positions stripped); scores stay positive.
_EPSILON = 1e-9


@dataclass(frozen=True)
class TsPlan:
    """What a keyword read asks: terms, how they combine, and a bound on rows ranked."""

    terms: tuple[str, ...]
    require_all: bool = False
    newest: int | None = None  # rank only the newest N matches (None: all)

    def tsquery(self, bind: Any) -> str:
        """The tsquery expression, each term bound through ``bind``."""
        op = " && " if self.require_all else " || "
        return "(" + op.join(f"phraseto_tsquery('simple', {bind(t)})" for t in self.terms) + ")"


def keyword_plan(terms: tuple[str, ...], doc_counts: dict[str, int], budget: int) -> TsPlan:
    """The rarest terms, adding commoner ones while their matches stay within ``budget``.

    The same rule as SQLite's (``store/sqlite/keyword_index.py``).
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
    return TsPlan(tuple(chosen), False, budget if total > budget else None)


def _positional(params: list[Any]) -> Any:
    def bind(value: Any) -> str:
        params.append(value)
        return "%s"
    return bind


class TsKeyword:
    """Keyword reads over ``chunks.tsv``, ``pages.tsv`` and ``memories.tsv`` of one source."""

    def __init__(self, db: PostgresEngine, source_id: str) -> None:
        self.db = db
        self.source_id = source_id
        self._term_counts: dict[tuple[str, str], tuple[float, int]] = {}

    def plan(self, kind: str, terms: QueryTerms) -> TsPlan:
        if terms.require_all or terms.row_budget is None:
            return TsPlan(terms.terms, terms.require_all)
        counts = self.term_doc_counts(kind, list(terms.terms))
        return keyword_plan(terms.terms, counts, terms.row_budget)

    def term_doc_counts(self, kind: str, terms: list[str]) -> dict[str, int]:
        """How many rows of ``kind`` (every source, like fts5vocab) hold each term; cached."""
        cache = self._term_counts
        now = time.monotonic()
        found = {t: hit[1] for t in terms if (hit := cache.get((kind, t))) and hit[0] > now}
        missing = [t for t in terms if t not in found]
        if missing:
            table = _TABLES[kind]
            params: list[Any] = []
            bind = _positional(params)
            counts = ", ".join(
                f"(SELECT COUNT(*) FROM {table} WHERE tsv @@ phraseto_tsquery('simple', "
                f"{bind(t)}))" for t in missing)
            row = self.db.one(f"SELECT {counts}", params)
            assert row is not None
            if len(cache) > TERM_CACHE_SIZE:
                cache.clear()
            for term, count in zip(missing, row, strict=True):
                found[term] = int(count)
                if count:  # a zero is never cached: a term just written must match at once
                    cache[(kind, term)] = (now + TERM_CACHE_SECONDS, int(count))
        return found

    def _floor(self, table: str, plan: TsPlan) -> int:
        """The id of the ``plan.newest``-th newest match (0: rank every match)."""
        if not plan.newest:
            return 0
        params: list[Any] = []
        q = plan.tsquery(_positional(params))
        floor = self.db.scalar(
            f"SELECT id FROM {table} WHERE tsv @@ {q} ORDER BY id DESC OFFSET %s LIMIT 1",
            (*params, plan.newest - 1),
        )
        return int(floor or 0)

    # -- reads ------------------------------------------------------------------

    def chunks(self, plan: TsPlan, *, include_private: bool, limit: int) -> list[ScoredId]:
        """Chunks of live (and, unless ``include_private``, world) pages, best first."""
        if not plan.terms:
            return []
        floor = self._floor("chunks", plan)
        params: list[Any] = []
        q = plan.tsquery(_positional(params))
        privacy = "" if include_private else "AND p.visibility = 'world'"
        rows = self.db.all(
            "SELECT c.id, c.page_id, ts_rank_cd(c.tsv, qq.q) AS score "
            f"FROM (SELECT {q} AS q) qq, chunks c JOIN pages p ON p.id = c.page_id "
            "WHERE c.tsv @@ qq.q AND c.id >= %s AND p.source_id = %s AND p.deleted_at IS NULL "
            f"{privacy} ORDER BY score DESC, c.id LIMIT %s",
            (*params, floor, self.source_id, limit),
        )
        return [ScoredId(int(r[0]), int(r[1]), float(r[2]) + _EPSILON) for r in rows]

    def titles(self, plan: TsPlan, *, include_private: bool, limit: int) -> list[ScoredId]:
        """Pages whose title or aliases match (title weighted 2:1 over aliases), best first."""
        if not plan.terms:
            return []
        floor = self._floor("pages", plan)
        params: list[Any] = []
        q = plan.tsquery(_positional(params))
        privacy = "" if include_private else "AND p.visibility = 'world'"
        rows = self.db.all(
            f"SELECT p.id, ts_rank_cd('{_PAGE_WEIGHTS}'::real[], p.tsv, qq.q) AS score "
            f"FROM (SELECT {q} AS q) qq, pages p WHERE p.tsv @@ qq.q AND p.id >= %s "
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
        q = plan.tsquery(_positional(params))
        where, where_params = fact_filter_sql(self.source_id, filt, "m.")
        rows = self.db.all(
            "SELECT m.id, ts_rank_cd(m.tsv, qq.q) AS score "
            f"FROM (SELECT {q} AS q) qq, memories m WHERE m.tsv @@ qq.q AND m.id >= %s "
            f"AND {where} ORDER BY score DESC, m.id DESC LIMIT %s",
            (*params, floor, *where_params, limit),
        )
        return [ScoredId(int(r[0]), 0, float(r[1]) + _EPSILON) for r in rows]

    def memories(self, plan: TsPlan, filt: MemoryFilter, *, limit: int) -> list[ScoredId]:
        """Memories ``filt``'s reader may recall (live rows only), best first, rows included."""
        if not plan.terms:
            return []
        where, params = memory_filter_sql(filt)
        q = plan.tsquery(_named(params, "q"))
        params["limit"] = limit
        rows = self.db.all(
            "SELECT m.*, ts_rank_cd(m.tsv, qq.q) AS ts_score "
            f"FROM (SELECT {q} AS q) qq, memories m WHERE m.tsv @@ qq.q AND {where} "
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

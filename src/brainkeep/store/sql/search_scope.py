"""What both engines' ``SearchIndex`` share: the scope each search takes, who sees private rows.

The keyword and vector mechanics are the engine's (SQLite: FTS5 and numpy /
mmapped HNSW; PostgreSQL: tsvector and pgvector); the rules here do not
depend on them, so they are written once.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.ports.search_index import SearchScope
from brainkeep.core.query import PageScope, QueryTerms
from brainkeep.core.retrieval import CHUNK, MEMORY, PAGE, FactFilter, ScoredId

Plan = TypeVar("Plan")


class KeywordReads(Protocol[Plan]):
    """An engine's keyword reads (``KeywordIndex``, ``TsKeyword``), over its own query plan."""

    def plan(self, kind: str, terms: QueryTerms) -> Plan: ...
    def chunks(self, plan: Plan, *, include_private: bool, limit: int) -> list[ScoredId]: ...
    def titles(self, plan: Plan, *, include_private: bool, limit: int) -> list[ScoredId]: ...
    def facts(self, plan: Plan, filt: FactFilter, *, limit: int) -> list[ScoredId]: ...
    def memories(self, plan: Plan, filt: MemoryFilter, *, limit: int) -> list[ScoredId]: ...


def keyword_search(words: KeywordReads[Plan], kind: str, terms: QueryTerms,
                   scope: SearchScope, k: int) -> list[ScoredId]:
    """``SearchIndex.keyword``: at most ``k`` rows of ``kind`` matching ``terms`` in ``scope``."""
    if kind not in (CHUNK, PAGE, MEMORY):
        raise ValueError(f"unknown search kind {kind!r}")
    plan = words.plan(kind, terms)
    if kind == CHUNK:
        pages = _page_scope(kind, scope)
        return words.chunks(plan, include_private=pages.include_private, limit=k)
    if kind == PAGE:
        pages = _page_scope(kind, scope)
        return words.titles(plan, include_private=pages.include_private, limit=k)
    if isinstance(scope, FactFilter):
        return words.facts(plan, scope, limit=k)
    if isinstance(scope, MemoryFilter):
        return words.memories(plan, scope, limit=k)
    raise TypeError(f"a memory search takes a FactFilter or MemoryFilter, not {scope!r}")


def _page_scope(kind: str, scope: SearchScope | None) -> PageScope:
    """``scope`` as the ``PageScope`` a chunk or page search takes."""
    if not isinstance(scope, PageScope):
        raise TypeError(f"a {kind} search takes a PageScope, not {type(scope).__name__}")
    return scope


def vector_sees_private(scope: SearchScope | None) -> bool:
    """Whether rows embedded as private stay in the vector pre-filter.

    The index knows one bit per row (visibility != world), so it can only
    drop private rows for readers who can see none: an anonymous remote
    reader. A bound reader may see some private rows (its own, shared ones),
    so they stay, and the store's filter decides when the hits are re-read.
    """
    if isinstance(scope, FactFilter):
        return scope.scope.trusted or bool(scope.scope.reader)
    if isinstance(scope, PageScope):
        return scope.include_private
    return True  # MemoryFilter or no scope: candidates only, re-checked by the caller

"""Recall: seven strategies over the memories a reader may see.

Every strategy reads through the same store filter (tenant, lifecycle,
scope/ACL/delegation), so ``org_id`` isolates tenants whichever list a result
comes from. Without an embedding provider (``ctx.vectors is None``),
``semantic`` answers from the lexical list and the hybrid family fuses without
the vector list; both say so through ``RecallResult.degraded`` instead of
failing (the Mnemo reference answered INTERNAL).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from brainkeep.core import validate
from brainkeep.core.memory import orientation
from brainkeep.core.memory import validation as v
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.models import (
    RECALL_STRATEGIES,
    MemoryFilter,
    RecallResult,
    Reconstruction,
    Scored,
)
from brainkeep.core.memory.orientation_map import OrientationRequest
from brainkeep.core.memory.ranking import RecallWeights, bm25_rank
from brainkeep.core.models import MEMORY_TYPES, SCOPES, Memory
from brainkeep.core.query import QueryTerms, query_terms
from brainkeep.core.retrieval import MEMORY
from brainkeep.errors import InvalidInput

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
MAX_QUERY_CHARS = 8192
SCAN_CAP = 5000
GRAPH_SEEDS = 10
# Widest vector list asked for when the engine returns unscoped candidates.
VECTOR_ASK_MAX = 4096
DEGRADED_SEMANTIC = "no-embedding-provider: semantic recall answered from the lexical list"
DEGRADED_HYBRID = "no-embedding-provider: hybrid recall fused without the vector list"


@dataclass(frozen=True)
class RecallInput:
    """A RecallRequest as plain values (``None`` = field not set)."""

    query: str
    limit: int | None = None
    strategy: str | None = None
    min_importance: float | None = None
    tags: tuple[str, ...] = ()
    agent_id: str | None = None
    memory_type: str | None = None
    scope: str | None = None
    org_id: str | None = None
    hybrid_weights: tuple[float, ...] = ()
    rrf_k: float | None = None
    as_of: str | None = None
    explain: bool = False
    # None: the request sent no ``orientation_cache`` (the map is not touched).
    orientation_cache: OrientationRequest | None = None


@dataclass(frozen=True)
class _Plan:
    query: str
    terms: QueryTerms  # stopwords kept: a memory is short, "not" can be the point
    filt: MemoryFilter
    limit: int
    strategy: str
    fusion: RecallWeights


def _plan(ctx: MnemoContext, req: RecallInput) -> _Plan:
    query = req.query or ""
    if not query.strip():
        raise InvalidInput("`query` is empty.", suggestion="Send the words to recall by.",
                           field="query")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"`query` is longer than {MAX_QUERY_CHARS} characters.",
                           field="query")
    limit = validate.limit(req.limit, default=DEFAULT_LIMIT, maximum=MAX_LIMIT)
    filt = MemoryFilter(
        source_id=ctx.source_id,
        reader=v.agent_id(req.agent_id),
        now=ctx.clock.now_ts(),
        org_id=v.org_id(req.org_id),
        as_of=v.timestamp(req.as_of, "as_of"),
        memory_type=v.optional_choice(req.memory_type, MEMORY_TYPES, "memory_type"),
        scope=v.optional_choice(req.scope, SCOPES, "scope"),
        min_importance=v.unit_float(req.min_importance, "min_importance"),
        tags=v.tags(req.tags),
    )
    strategy = v.choice(req.strategy, RECALL_STRATEGIES, "strategy", "hybrid")
    return _Plan(query, query_terms(query, keep_stopwords=True), filt, limit, strategy,
                 RecallWeights.parse(req.hybrid_weights, req.rrf_k))


def _lexical(ctx: MnemoContext, plan: _Plan, n: int) -> list[tuple[Memory, float]]:
    """BM25 hits: memories holding every term first, then those holding any.

    All-terms first is the usual relevance preference, and it is cheap: BM25
    is computed per matching row, and common words match thousands of rows
    under OR but few under AND. OR runs only to fill the list up.
    """
    if plan.filt.as_of:
        # FTS holds live rows only; a past instant may need since-deleted ones.
        terms = list(plan.terms.terms)
        candidates = ctx.store.memories_matching_terms(plan.filt, terms, SCAN_CAP)
        return bm25_rank(candidates, terms)[:n]
    hits = _keyword(ctx, plan, plan.terms.every(), n)
    if len(hits) >= n or len(plan.terms.terms) < 2:
        return hits
    seen = {m.id for m, _ in hits}
    loose = _keyword(ctx, plan, plan.terms.any(), n)
    return hits + [(m, s) for m, s in loose if m.id not in seen][: n - len(hits)]


def _keyword(
    ctx: MnemoContext, plan: _Plan, terms: QueryTerms, n: int
) -> list[tuple[Memory, float]]:
    """The index's BM25 list as memories (the index applied the read scope already)."""
    scored = ctx.index.keyword(MEMORY, terms, plan.filt, n)
    rows = {s.id: s.memory for s in scored if s.memory is not None}
    if len(rows) < len(scored):
        rows |= ctx.store.get_memories([s.id for s in scored if s.id not in rows])
    return [(rows[s.id], s.score) for s in scored if s.id in rows]


def _vector(ctx: MnemoContext, plan: _Plan, n: int) -> list[tuple[Memory, float]]:
    if ctx.vectors is None:
        return []
    # The read scope goes into the search (reference gap: it took 4·n from the
    # whole brain and filtered afterwards, so a small tenant got almost
    # nothing). An engine that only returns candidates is widened here.
    ask = n * 4
    while True:
        hits = ctx.vectors.search_memories(plan.query, None, ask, scope=plan.filt)
        visible = {m.id: m for m in ctx.store.visible_memories(plan.filt, [mid for mid, _ in hits])}
        found = [(visible[mid], cos) for mid, cos in hits if mid in visible]
        if len(found) >= n or len(hits) < ask or ask >= VECTOR_ASK_MAX:
            return found[:n]
        ask *= 4


def _graph(ctx: MnemoContext, plan: _Plan, seeds: list[Memory]) -> list[Memory]:
    """Seeds and their ``related_to`` neighbours, most-connected first."""
    seed_ids = [m.id for m in seeds[:GRAPH_SEEDS]]
    links: dict[int, int] = {}
    for a, b in ctx.store.memory_relations(seed_ids):
        for node in (a, b):
            links[node] = links.get(node, 0) + 1
    if not links:
        return []
    visible = {m.id: m for m in ctx.store.visible_memories(plan.filt, list(links))}
    seed_rank = {mid: i for i, mid in enumerate(seed_ids)}
    order = sorted(visible, key=lambda mid: (-links[mid], seed_rank.get(mid, len(seed_ids))))
    return [visible[mid] for mid in order]


def _single(pairs: list[tuple[Memory, float]], field: str) -> list[Scored]:
    """One ranked list (``bm25`` or ``vector``) as results; its raw score fills that field."""
    return [
        Scored(memory=m, score=s, rank=i, bm25=s if field == "bm25" else 0.0,
               vector=s if field == "vector" else 0.0)
        for i, (m, s) in enumerate(pairs, start=1)
    ]


def _hybrid(ctx: MnemoContext, plan: _Plan) -> list[Scored]:
    pool = max(plan.limit * 3, 30)  # candidates per list; RRF only needs the heads
    bm25 = [m for m, _ in _lexical(ctx, plan, pool)]
    vector = [m for m, _ in _vector(ctx, plan, pool)]
    seeds = list({m.id: m for m in bm25[:GRAPH_SEEDS] + vector[:GRAPH_SEEDS]}.values())
    graph = _graph(ctx, plan, seeds)
    union = {m.id: m for m in bm25 + vector + graph}
    recency = sorted(union.values(), key=lambda m: (m.created_at, m.id), reverse=True)
    lists = {"vector": vector, "bm25": bm25, "graph": graph, "recency": recency}
    return plan.fusion.fuse(lists, plan.limit)


def _reconstruct(ctx: MnemoContext, plan: _Plan, hits: list[Scored]) -> Reconstruction:
    """An extractive belief-state node (no LLM).

    Sources are the top hits that matched the cue itself (BM25 or vector);
    linked context is what the graph adds around them. Confidence is the
    share of query terms the sources cover.
    """
    sources = [s.memory for s in hits if s.bm25 > 0 or s.vector > 0][:5]
    source_ids = {m.id for m in sources}
    around = [s.memory for s in hits] + _graph(ctx, plan, sources)
    linked = list({m.id: m for m in around if m.id not in source_ids}.values())
    covered = {t for m in sources for t in query_terms(m.text, keep_stopwords=True).terms}
    terms = plan.terms.terms
    confidence = (sum(1 for t in terms if t in covered) / len(terms)
                  if terms and sources else 0.0)
    summary = "\n".join(f"- {' '.join(m.text.split())[:240]}" for m in sources)
    return Reconstruction(
        cue=plan.query,
        summary=summary,
        source_ids=tuple(m.uuid for m in sources),
        linked_context_ids=tuple(m.uuid for m in linked[:10]),
        confidence=round(confidence, 4),
    )


def recall(ctx: MnemoContext, req: RecallInput) -> RecallResult:
    """Rank the memories ``req.agent_id`` may read for ``req.query``.

    Raises:
        InvalidInput: empty query, bad strategy, filter, weight or timestamp.
    """
    plan = _plan(ctx, req)
    orient = (None if req.orientation_cache is None
              else orientation.plan(req.orientation_cache, plan.filt))
    degraded: str | None = None
    reconstruction = None
    if plan.strategy == "exact":
        hits = [Scored(memory=m, score=1.0, rank=i) for i, m in enumerate(
            ctx.store.memories_containing(plan.filt, plan.query.strip(), plan.limit), start=1)]
    elif plan.strategy == "lexical":
        hits = _single(_lexical(ctx, plan, plan.limit), "bm25")
    elif plan.strategy == "semantic":
        if ctx.vectors is None:
            degraded = DEGRADED_SEMANTIC
            hits = _single(_lexical(ctx, plan, plan.limit), "bm25")
        else:
            hits = _single(_vector(ctx, plan, plan.limit), "vector")
    elif plan.strategy == "graph":
        seeds = [m for m, _ in _lexical(ctx, plan, GRAPH_SEEDS)]
        ordered = list({m.id: m for m in seeds + _graph(ctx, plan, seeds)}.values())
        hits = [Scored(memory=m, score=1.0 / i, graph=1.0 / i, rank=i)
                for i, m in enumerate(ordered[: plan.limit], start=1)]
    else:  # auto | hybrid | reconstruct
        degraded = DEGRADED_HYBRID if ctx.vectors is None else None
        hits = _hybrid(ctx, plan)
        if plan.strategy == "reconstruct":
            reconstruction = _reconstruct(ctx, plan, hits)
    hits = _record_access(ctx, plan, hits)
    context_map = (None if orient is None
                   else orientation.maintain(ctx, plan.filt, [s.memory for s in hits], orient))
    return RecallResult(tuple(hits), degraded, reconstruction, context_map)


def _record_access(ctx: MnemoContext, plan: _Plan, hits: list[Scored]) -> list[Scored]:
    """Count the access on each returned memory (buffered, see ``reads``).

    The read row (``memory_reads``, not the hash chain) feeds TrajectoryAudit's
    read-only-retrieval signal; it names the tenant, never the query text.
    """
    unwritten = ctx.reads.record(plan.filt.reader, plan.strategy, [s.memory.id for s in hits],
                                 org_id=plan.filt.org_id)
    return [replace(s, unwritten_accesses=unwritten.get(s.memory.id, 0)) for s in hits]

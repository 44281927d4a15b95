"""recall: facts arm (entity, since, session compose) + page search arm + budget."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainkeep.core import validate
from brainkeep.core.clock import format_ts
from brainkeep.core.context import Caller
from brainkeep.core.limits import RECALL_LIMIT_DEFAULT, RECALL_LIMIT_MAX
from brainkeep.core.verbs.common import (
    PROTOCOL_VERSION,
    estimate_tokens,
    pack_pair,
    parse_budget,
    parse_since,
)
from brainkeep.core.verbs.views import entity_resolution_object, fact_object

if TYPE_CHECKING:
    from brainkeep.core.verbs.services import VerbServices

DEFAULT_LIMIT = RECALL_LIMIT_DEFAULT
MAX_LIMIT = RECALL_LIMIT_MAX


def clamp_limit(value: Any) -> int:
    """Per-arm limit: default 50; above 100 means 100; below 1 is ``InvalidInput``
    (the one limit rule, ``core.validate.limit``, shared with search and gRPC)."""
    return validate.limit(value, default=DEFAULT_LIMIT, maximum=MAX_LIMIT)


def recall(
    brain: VerbServices,
    caller: Caller,
    *,
    entity: str | None = None,
    query: str | None = None,
    since: str | None = None,
    session_id: str | None = None,
    include_expired: bool = False,
    grep: str | None = None,
    limit: Any = None,
    budget_tokens: Any = None,
) -> dict[str, Any]:
    """Saved facts matching EVERY given filter, plus pages for ``query``.

    The reference picks the first filter it sees; here entity, since and
    session compose, an unparseable `since` is an error, and facts past their
    `valid_until` are hidden unless `include_expired`.
    """
    per_arm = clamp_limit(limit)
    since_ts = format_ts(parse_since(since, brain.clock.now())) if since else None
    text = query.strip() if isinstance(query, str) else ""
    # The page arm runs beside the facts arm (core.overlap): independent reads.
    pages = brain.overlap.start(
        lambda: brain.search.search(text, include_private=caller.include_private,
                                    limit=per_arm)
    ) if text else None
    resolved = brain.facts.resolve_entity(entity, caller)
    facts = brain.facts.list_facts(
        caller,
        resolved=resolved,
        since=since_ts,
        session_id=session_id,
        include_expired=bool(include_expired),
        grep=grep.strip() if grep and grep.strip() else None,
        limit=per_arm,
        # The query also ranks the facts arm (docs/search.md): same fact objects.
        query=text or None,
    )
    fact_items = [fact_object(m) for m in facts]
    response: dict[str, Any] = {"protocol_version": PROTOCOL_VERSION}
    results: list[dict[str, Any]] | None = None
    if pages is not None:
        outcome = pages()
        results = [
            {
                "slug": r.slug,
                "title": r.title,
                "chunk": r.chunk,
                "evidence": r.evidence,
                "create_safety": r.create_safety,
                "provenance": r.slug,
            }
            for r in outcome.results
        ]
        if outcome.degraded:
            response["search_degraded"] = outcome.degraded
        if outcome.time is not None:
            # An optional field (MEMORY_VERBS v1 allows additions): the time
            # window the query was read as, and that it boosted, never filtered.
            response["explanation"] = {"time": outcome.time.describe()}
    budget = parse_budget(budget_tokens)
    if budget is not None:
        packed = pack_pair(
            fact_items,
            lambda f: estimate_tokens(f["fact"]),
            results or [],
            lambda r: estimate_tokens(r["title"]) + estimate_tokens(r["chunk"]),
            budget,
        )
        fact_items, used, dropped = packed.first, packed.used, packed.dropped
        if results is not None:
            results = packed.second
        response.update(budget_tokens=budget, budget_used=used, dropped_count=dropped)
    response["facts"] = fact_items
    response["total"] = len(fact_items)
    if resolved is not None:
        # Says when the name matched no page (and suggests), as `entity` does.
        response["entity_resolution"] = entity_resolution_object(resolved, writing=False)
    if results is not None:
        response["results"] = results
    return response

"""Browsing memories with every filter the console offers, inside the reader's scope.

The rows come from the store's one scoped list (``ReadScope`` compiled once
in the engine); the extra filters (agent, visibility, an upper time bound)
only narrow what that list already allowed, so no filter can widen it.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core.context import Caller
from brainkeep.core.entity_resolution import canonical_entity
from brainkeep.core.memory.facts import FactService
from brainkeep.core.models import Memory

BROWSE_LIMIT_MAX = 200
# Rows read per narrowing pass: filters the engine does not take are applied after it.
SCAN_FACTOR = 5


@dataclass(frozen=True)
class MemoryQuery:
    """What to show. Every field is optional; given fields compose (AND)."""

    entity: str | None = None
    kind: str | None = None
    agent: str | None = None
    visibility: str | None = None
    since: str | None = None
    until: str | None = None
    text: str | None = None
    include_expired: bool = False
    limit: int = 50


def browse_memories(facts: FactService, caller: Caller, query: MemoryQuery) -> list[Memory]:
    """Memories ``caller`` may read matching ``query``, newest first."""
    limit = max(1, min(BROWSE_LIMIT_MAX, query.limit))
    narrowed = bool(query.agent or query.visibility or query.until)
    entity_slug = canonical_entity(facts.store, facts.source_id, query.entity,
                                   include_private=caller.include_private)
    rows = facts.store.list_memories(
        facts.source_id,
        now=facts.clock.now_ts(),
        entity_slug=entity_slug,
        since=query.since,
        scope=caller.read_scope,
        include_expired=query.include_expired,
        kinds=(query.kind,) if query.kind else None,
        text_contains=query.text,
        limit=limit * SCAN_FACTOR if narrowed else limit,
    )
    kept = [
        m for m in rows
        if (not query.agent or m.agent_id == query.agent)
        and (not query.visibility or query.visibility in (m.visibility, m.scope))
        and (not query.until or m.created_at <= query.until)
    ]
    return kept[:limit]

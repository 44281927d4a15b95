"""entity: one card for a person/company/project; never an error on a miss."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from brainkeep.core.context import Caller
from brainkeep.core.entities import resolve_entity
from brainkeep.core.verbs.cards import build_card
from brainkeep.core.verbs.common import PROTOCOL_VERSION
from brainkeep.errors import InvalidInput

if TYPE_CHECKING:
    from brainkeep.core.verbs.services import VerbServices

RUNNERS_UP_CAP = 3
NEAR_MISS_CAP = 3
# Rows the near-miss search may rank per common word (recall ranks 1,000).
# Three suggestions for a name that matched nothing need no deep list, and
# ranking is what a miss costs: ~4 us a row on SQLite's FTS5, more on PostgreSQL.
NEAR_MISS_ROW_BUDGET = 100


def entity(brain: VerbServices, caller: Caller, *, name: str) -> dict[str, Any]:
    """Resolve ``name`` (alias > exact title > slug / suffix) and build its card."""
    text = name.strip() if isinstance(name, str) else ""
    if not text:
        raise InvalidInput(
            "`name` is empty.",
            suggestion='Pass a person, company or project name, e.g. "Alice Example" or '
            '"people/alice-example".',
            field="name",
        )
    started = time.perf_counter()
    resolution = resolve_entity(
        brain.store, brain.source_id, text, include_private=caller.include_private
    )
    response: dict[str, Any] = {"protocol_version": PROTOCOL_VERSION}
    if resolution.best is None:
        response["found"] = False
        response["suggestions"] = near_misses(brain, caller, text)
    else:
        response["found"] = True
        response["card"] = build_card(brain, resolution.best, caller).card
        if resolution.runners_up:
            response["suggestions"] = [
                {"slug": p.slug, "title": p.title or p.slug, "create_safety": "exists"}
                for p in resolution.runners_up[:RUNNERS_UP_CAP]
            ]
    response["latency_ms"] = int(round((time.perf_counter() - started) * 1000))
    return response


def near_misses(brain: VerbServices, caller: Caller, text: str) -> list[dict[str, Any]]:
    """Keyword suggestions for a name that resolved to nothing (MEMORY_VERBS v1).

    Keyword arms only, as the contract says: a name that matched nothing
    has no meaning for a vector to find, and the query embedding plus two
    vector searches were most of a miss's cost on a big brain.
    """
    keyword_search = replace(brain.search, mode="keyword", row_budget=NEAR_MISS_ROW_BUDGET)
    outcome = keyword_search.search(text, include_private=caller.include_private,
                                    limit=NEAR_MISS_CAP)
    return [
        {"slug": r.slug, "title": r.title or r.slug, "create_safety": r.create_safety}
        for r in outcome.results
    ]

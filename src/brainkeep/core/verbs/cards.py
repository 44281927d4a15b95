"""Entity cards: the compact, privacy-fenced view of one page (zero LLM, indexed reads)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from brainkeep.core.context import Caller
from brainkeep.core.models import Page

if TYPE_CHECKING:
    from brainkeep.core.verbs.services import VerbServices

SUMMARY_CHARS = 160
OPEN_THREADS_CAP = 3
EDGES_CAP = 10
RECENT_EVENT_DAYS = 90


def clip(text: str, limit: int = SUMMARY_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def safe_summary(page: Page) -> str:
    """Frontmatter `summary`, else the first sentence of the first plain body line.

    Facts live in the memories table, never in the page body, so a world page
    body holds nothing private; private pages never reach remote callers.
    """
    if page.summary and page.summary.strip():
        return clip(page.summary)
    for line in page.body.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "<!--", "---")):
            continue
        sentence = re.split(r"(?<=[.!?])\s", stripped, maxsplit=1)[0]
        return clip(sentence)
    return ""


@dataclass(frozen=True)
class CardParts:
    """A card plus the pieces context_pack and delta reuse."""

    card: dict[str, Any]
    open_threads: list[dict[str, Any]]


def build_card(brain: VerbServices, page: Page, caller: Caller) -> CardParts:
    """Assemble the entity card of ``page`` as ``caller`` may see it."""
    store, source = brain.store, brain.source_id
    include_private = caller.include_private
    now = brain.clock.now()
    now_ts = brain.clock.now_ts()
    commitments = store.list_memories(
        source,
        now=now_ts,
        entity_slug=page.slug,
        scope=caller.read_scope,
        kinds=("commitment",),
        limit=OPEN_THREADS_CAP,
    )
    timeline = store.timeline(page.id)
    threads: list[dict[str, Any]] = [
        {"kind": "commitment", "text": m.text, "date": m.valid_from} for m in commitments
    ]
    if len(threads) < OPEN_THREADS_CAP:
        cutoff = (now.date() - timedelta(days=RECENT_EVENT_DAYS)).isoformat()
        recent = [e for e in reversed(timeline[-5:]) if e.date >= cutoff and _is_date(e.date)]
        for entry in recent[: OPEN_THREADS_CAP - len(threads)]:
            threads.append({"kind": "recent_event", "text": entry.summary, "date": entry.date})

    card = {
        "entity": {"slug": page.slug, "title": page.title or page.slug, "type": page.type},
        "aka": sorted(store.page_aliases(page.id)),
        "summary": safe_summary(page),
        "last_touched": {
            "updated_at": page.updated_at,
            "last_retrieved_at": page.last_retrieved_at,
            "last_timeline_date": max((e.date for e in timeline), default=None),
        },
        "open_threads": threads,
        "edges": _edges(brain, page, include_private),
        "backlink_count": store.count_backlinks(
            source, page.slug, include_private=include_private, exclude_type="mentions"
        ),
        "active_fact_count": store.count_active_memories(
            source, page.slug, now_ts, scope=caller.read_scope
        ),
    }
    return CardParts(card, threads)


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _edges(brain: VerbServices, page: Page, include_private: bool) -> list[dict[str, Any]]:
    store, source = brain.store, brain.source_id
    out = [
        link
        for link in store.links_from(source, page.slug)
        if link.link_type != "mentions"
    ]
    out.sort(key=lambda ln: (ln.link_type, ln.to_slug))
    if not include_private and out:
        targets = store.get_pages(source, [ln.to_slug for ln in out])
        out = [ln for ln in out if not (ln.to_slug in targets and targets[ln.to_slug].is_private)]
    edges = [
        {"type": ln.link_type, "direction": "out", "slug": ln.to_slug,
         "context": ln.context or None}
        for ln in out[:EDGES_CAP]
    ]
    if len(edges) < EDGES_CAP:
        incoming = store.links_to(
            source,
            page.slug,
            include_private=include_private,
            exclude_type="mentions",
            limit=EDGES_CAP - len(edges),
        )
        edges.extend(
            {"type": ln.link_type, "direction": "in", "slug": ln.from_slug,
             "context": ln.context or None}
            for ln in incoming
        )
    return edges

"""context_pack: cards, open threads and hot facts for up to 8 entities, budget-packed."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from brainkeep.core.clock import format_ts
from brainkeep.core.context import Caller
from brainkeep.core.entities import resolve_entity
from brainkeep.core.limits import ORIENTATION_BUDGET_DEFAULT
from brainkeep.core.memory import validation as mnemo_validation
from brainkeep.core.memory.orientation import line, read_map
from brainkeep.core.memory.orientation_map import OrientationEntry, OrientationMap
from brainkeep.core.models import Memory
from brainkeep.core.verbs.cards import build_card
from brainkeep.core.verbs.common import (
    PROTOCOL_VERSION,
    clean_line,
    estimate_tokens,
    normalize_cursor,
    pack_pair,
    parse_budget,
    parse_entities,
    render_envelope,
    storage_ts,
)
from brainkeep.core.verbs.views import pack_fact

if TYPE_CHECKING:
    from brainkeep.core.verbs.services import VerbServices

HOT_FACTS = 10


def view_caller(caller: Caller, include_private: Any) -> Caller:
    """World-only unless a LOCAL caller asked for private too (remote never widens)."""
    if include_private is True and not caller.remote:
        return caller
    return dataclasses.replace(caller, remote=True)


def card_item(card: dict[str, Any]) -> dict[str, Any]:
    entity = card["entity"]
    return {
        "slug": entity["slug"],
        "title": entity["title"],
        "type": entity["type"],
        "summary": card["summary"],
        "open_threads": card["open_threads"],
        "edges": card["edges"],
        "backlink_count": card["backlink_count"],
    }


def cards_for(brain: VerbServices, viewer: Caller, names: list[str]) -> list[dict[str, Any]]:
    """Cards of the names that resolve (misses contribute nothing)."""
    cards: list[dict[str, Any]] = []
    seen: set[str] = set()
    for name in names:
        resolution = resolve_entity(
            brain.store, brain.source_id, name, include_private=viewer.include_private
        )
        if resolution.best is None or resolution.best.slug in seen:
            continue
        seen.add(resolution.best.slug)
        cards.append(card_item(build_card(brain, resolution.best, viewer).card))
    return cards


def threads_after(cards: list[dict[str, Any]], since_us: str | None) -> list[dict[str, Any]]:
    threads = [t for card in cards for t in card["open_threads"]]
    if since_us is None:
        return threads
    return [t for t in threads if t["date"] and t["date"] > since_us]


def hot_facts(brain: VerbServices, viewer: Caller, session_id: str | None) -> list[Memory]:
    """The session's active facts, else facts from the last 24 hours; top 10."""
    now = brain.clock.now()
    facts: list[Memory] = []
    if session_id:
        facts = brain.store.list_memories(
            brain.source_id, now=format_ts(now), session_id=session_id,
            scope=viewer.read_scope, limit=HOT_FACTS,
        )
    if not facts:
        facts = brain.store.list_memories(
            brain.source_id, now=format_ts(now), since=format_ts(now - timedelta(hours=24)),
            scope=viewer.read_scope, limit=HOT_FACTS,
        )
    return sorted(facts, key=lambda m: (m.confidence or 1.0, m.created_at), reverse=True)


def render_card_line(card: dict[str, Any]) -> str:
    line = f"- **{clean_line(card['title'])}** → `{card['slug']}`"
    if card["summary"]:
        line += f" — {clean_line(card['summary'])}"
    return line + " (open the page or call entity before relying on details)"


def render_thread_line(thread: dict[str, Any]) -> str:
    line = f"- [{thread['kind']}] {clean_line(thread['text'])}"
    return line + (f" ({thread['date']})" if thread["date"] else "")


def render_fact_line(fact: dict[str, Any]) -> str:
    line = f"- {clean_line(fact['fact'])}"
    if fact["entity_slug"]:
        line += f" [{fact['entity_slug']}]"
    return line + f" ({float(fact['confidence']):.2f})"


def context_pack(
    brain: VerbServices,
    caller: Caller,
    *,
    entities: Any,
    budget_tokens: Any = None,
    since: str | None = None,
    session_id: str | None = None,
    include_private: Any = None,
    orientation_namespace: str | None = None,
) -> dict[str, Any]:
    """One deterministic bundle for session start or after compaction (zero LLM).

    ``orientation_namespace`` (a brainkeep extension) adds that namespace's
    orientation map, read-only, as the viewer may see it (docs/grpc.md,
    "Orientation cache"), within its own 512-token budget.
    """
    namespace = mnemo_validation.label(orientation_namespace, "orientation_namespace")
    names = parse_entities(entities)
    since_us = storage_ts(normalize_cursor(since)) if since else None
    viewer = view_caller(caller, include_private)
    cards = cards_for(brain, viewer, names)
    facts = [pack_fact(m) for m in hot_facts(brain, viewer, session_id)]
    response: dict[str, Any] = {"protocol_version": PROTOCOL_VERSION, "entities": names}
    budget = parse_budget(budget_tokens)
    if budget is not None:
        packed = pack_pair(
            cards, _card_cost, facts, lambda f: estimate_tokens(f["fact"]), budget
        )
        cards, facts, used, dropped = packed.first, packed.second, packed.used, packed.dropped
        response.update(budget_tokens=budget, budget_used=used, dropped_count=dropped)
    threads = threads_after(cards, since_us)
    response.update(cards=cards, open_threads=threads, facts=facts)
    sections = [
        ("Standing entities", [render_card_line(c) for c in cards]),
        ("Open threads", [render_thread_line(t) for t in threads]),
        ("Hot memory (recent facts)", [render_fact_line(f) for f in facts]),
    ]
    if namespace is not None:
        context_map = read_map(brain.store, namespace, source_id=brain.source_id,
                               scope=viewer.read_scope, now=brain.clock.now_ts(),
                               budget=ORIENTATION_BUDGET_DEFAULT)
        response["orientation"] = orientation_item(context_map)
        sections.append(("Orientation map", orientation_lines(context_map)))
    response["text"] = render_envelope(sections)
    return response


def _entry(e: OrientationEntry) -> dict[str, Any]:
    return {"key": e.key, "value": e.value, "freq": e.freq, "token_estimate": e.token_estimate}


def orientation_item(m: OrientationMap) -> dict[str, Any]:
    """The map as JSON: the fields of gRPC's ``OrientationCacheResponse``."""
    return {
        "namespace": m.namespace, "entities": [_entry(e) for e in m.entities],
        "constants": [_entry(e) for e in m.constants], "schemas": [_entry(e) for e in m.schemas],
        "token_estimate": m.token_estimate, "budget": m.budget, "hit_count": m.hit_count,
    }


def orientation_lines(m: OrientationMap) -> list[str]:
    """One line per entry, as ``token_estimate`` counts it (``orientation.line``)."""
    return [f"- [{kind}] {clean_line(line(e.key, e.value, e.freq))}"
            for kind, entries in (("entity", m.entities), ("constant", m.constants),
                                  ("schema", m.schemas))
            for e in entries]


def _card_cost(card: dict[str, Any]) -> int:
    threads = " ".join(t["text"] for t in card["open_threads"])
    return estimate_tokens(f"{card['title']} {card['summary']} {threads}")

"""Per-prompt injection: entities the prompt names, then recall(query), under a budget."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from brainkeep.core.ambient.mentions import mentions
from brainkeep.core.ambient.relevance import Item, Selection, select, terms
from brainkeep.core.ambient.render import block
from brainkeep.core.limits import MAX_QUERY_CHARS

# Calls (tool name, arguments) -> their verb envelopes, in order. One batch per
# hook run: the reads do not depend on each other, and every round trip to a
# server is a wake-up a loaded machine makes slow. The front decides how they travel.
Ask = Callable[[Sequence[tuple[str, dict[str, Any]]]], list[dict[str, Any]]]


def one_by_one(ask_one: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Ask:
    """An ``Ask`` over a one-call function (each call in turn)."""
    return lambda calls: [ask_one(tool, arguments) for tool, arguments in calls]

PROMPT_BUDGET = 1500
RELEVANCE_FLOOR = 0.3
QUERY_LIMIT = 8
ENTITY_FACTS = 5
SNIPPET_CHARS = 480
LINES_PER_PAGE = 4
QUERY_CHARS = min(2000, MAX_QUERY_CHARS)  # a pasted log needs no more to find its topic
# Resolutions that are the name itself, not a guess (core.entity_resolution VIAS).
EXACT_VIAS = frozenset({"alias", "title", "slug"})


@dataclass(frozen=True)
class PromptContext:
    """What one prompt gets: the text to inject ('' for nothing) and the accounting."""

    text: str
    selection: Selection
    entities: tuple[str, ...]  # slugs the prompt named (for the workspace's standing set)
    calls: int

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(item.key for item in self.selection.items)


def fact_items(envelope: dict[str, Any], *, pinned: bool = False) -> list[Item]:
    out = []
    for fact in envelope.get("facts") or []:
        ident = fact.get("fact_id") or fact.get("id")
        text = str(fact.get("fact") or "")
        if ident is None or not text:
            continue
        source = str(fact.get("entity_slug") or fact.get("provenance") or "")
        out.append(Item(f"fact:{ident}", "fact", text, source, pinned))
    return out


def best_lines(text: str, wanted: frozenset[str], *, most: int = LINES_PER_PAGE) -> list[str]:
    """The lines of a chunk that share the most words with the prompt (best first).

    A line qualifies with at least half the best line's shared words, so a
    pointed question gets its line, not every line naming the same project.
    Markdown headings (a title again, a speaker) are skipped.
    """
    lines = [ln.strip().lstrip(">").strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    hits = {i: len(wanted & terms(ln)) for i, ln in enumerate(lines)}
    best = max(hits.values(), default=0)
    if best == 0:
        return []
    keep = sorted((i for i in hits if hits[i] * 2 >= best), key=lambda i: (-hits[i], i))
    return [ln if len(ln) <= SNIPPET_CHARS else ln[:SNIPPET_CHARS - 1] + "…"
            for ln in (lines[i] for i in keep[:most])]


def page_items(envelope: dict[str, Any], wanted: frozenset[str]) -> list[Item]:
    """One item per relevant line of each page hit, keyed by the line (never shown twice)."""
    out = []
    for hit in envelope.get("results") or []:
        slug = str(hit.get("slug") or "")
        chunk = str(hit.get("chunk") or "")
        if not slug or not chunk:
            continue
        for line in best_lines(chunk, wanted):
            digest = hashlib.sha1(f"{slug}\n{line}".encode("utf-8", "replace")).hexdigest()[:12]
            out.append(Item(f"line:{digest}", "page", line, slug))
    return out


def prompt_context(
    prompt: str,
    ask: Ask,
    *,
    seen: Sequence[str] | frozenset[str] = (),
    budget: int = PROMPT_BUDGET,
    floor: float = RELEVANCE_FLOOR,
) -> PromptContext:
    """Memories and page snippets relevant to ``prompt``; nothing below the floor.

    Facts about an entity the prompt names come first (exact name matches
    only), then what ``recall(query)`` ranks; items already injected in this
    session (``seen``) are skipped, so a long session is not fed one fact
    twenty times.
    """
    wanted = terms(prompt)
    candidates: list[Item] = []
    slugs: list[str] = []
    if not wanted:
        return PromptContext("", select(prompt, [], seen=seen, budget=budget, floor=floor),
                             (), 0)
    names = mentions(prompt)
    calls = [("recall", {"entity": name, "limit": ENTITY_FACTS}) for name in names]
    calls.append(("recall", {"query": prompt[:QUERY_CHARS], "limit": QUERY_LIMIT}))
    *named, found = ask(calls)
    for envelope in named:
        resolution = envelope.get("entity_resolution") or {}
        if resolution.get("via") in EXACT_VIAS and resolution.get("slug"):
            slugs.append(str(resolution["slug"]))
            candidates += fact_items(envelope, pinned=True)
    candidates += fact_items(found) + page_items(found, wanted)
    chosen = select(prompt, candidates, seen=seen, budget=budget, floor=floor)
    text = block("relevant-to-this-prompt", [("Memory", chosen.items)])
    return PromptContext(text, chosen, tuple(dict.fromkeys(slugs)), len(calls))

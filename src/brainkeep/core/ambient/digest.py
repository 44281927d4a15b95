"""Session-start digest: standing entities and what changed since the last session.

``context_pack`` gives the standing entities' cards and recent facts;
``delta`` with a per-workspace session cursor gives the pages and facts
changed since the workspace's previous session (the first session in a
workspace establishes the cursor and shows no changes).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from brainkeep.core.ambient.prompt import Ask, fact_items
from brainkeep.core.ambient.relevance import Item, select
from brainkeep.core.ambient.render import block

START_BUDGET = 1000


@dataclass(frozen=True)
class Digest:
    """The session-start injection and the keys it used (seen for the whole session)."""

    text: str
    keys: tuple[str, ...]
    tokens: int
    calls: int


def workspace_cursor(workspace: str) -> str:
    """The delta session id of a workspace (a directory): stable, short, no path in it."""
    return "hooks:" + hashlib.sha256(workspace.encode("utf-8", "replace")).hexdigest()[:24]


def _cards(envelope: dict[str, Any]) -> list[Item]:
    out = []
    for card in envelope.get("cards") or []:
        slug = str(card.get("slug") or "")
        if not slug:
            continue
        summary = str(card.get("summary") or "")
        text = f"{card.get('title') or slug}" + (f": {summary}" if summary else "")
        out.append(Item(f"entity:{slug}", "entity", text, slug, pinned=True))
        for thread in card.get("open_threads") or []:
            words = str(thread.get("text") or "")
            if words:
                key = "thread:" + hashlib.sha1(f"{slug}\n{words}".encode()).hexdigest()[:12]
                out.append(Item(key, "thread", f"[{thread.get('kind', 'open')}] {words}", slug,
                                pinned=True))
    return out


def _changed_pages(envelope: dict[str, Any]) -> list[Item]:
    return [Item(f"changed:{p['slug']}:{p.get('updated_at', '')}", "page",
                 f"{p.get('title') or p['slug']} (updated {p.get('updated_at', '')})",
                 str(p["slug"]), pinned=True)
            for p in envelope.get("pages") or [] if p.get("slug")]


def session_digest(
    ask: Ask,
    *,
    workspace: str,
    standing: Sequence[str],
    budget: int = START_BUDGET,
    seen: Sequence[str] = (),
) -> Digest:
    """The digest for a session starting in ``workspace`` ('' text when there is nothing)."""
    # The verb takes a comma-separated string (MEMORY_VERBS v1).
    names = list(dict.fromkeys(n.replace(",", " ").strip() for n in standing if n))
    pack, changes = ask([
        ("context_pack", {"entities": ",".join(n for n in names if n)[:2000],
                          "budget_tokens": max(1, budget // 2)}),
        ("delta", {"session_id": workspace_cursor(workspace),
                   "budget_tokens": max(1, budget // 2)}),
    ])
    standing_items = _cards(pack)
    changed = _changed_pages(changes) + [
        Item(i.key, i.kind, i.text, i.source, pinned=True) for i in fact_items(changes)]
    recent = [Item(i.key, i.kind, i.text, i.source, pinned=True) for i in fact_items(pack)]
    chosen = select("", [*standing_items, *changed, *recent], seen=seen, budget=budget,
                    floor=0.0)
    # A fact both changed and recent is shown once, under the first section.
    section: dict[str, str] = {}
    for name, items in (("standing", standing_items), ("changed", changed),
                        ("recent", recent)):
        for item in items:
            section.setdefault(item.key, name)
    text = block("session-start", [
        (title, [i for i in chosen.items if section[i.key] == name])
        for name, title in (("standing", "Standing entities"),
                            ("changed", "Changed since the last session here"),
                            ("recent", "Recent facts"))
    ])
    return Digest(text, tuple(i.key for i in chosen.items), chosen.tokens, 2)

"""Entity resolution: which page a name means.

Frozen precedence (MEMORY_VERBS v1): alias > exact title > slug / slug
suffix; within a tier the most recently touched page wins. Private pages are
candidates only for trusted local callers.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core.models import Page
from brainkeep.core.slugs import is_valid_slug, normalize_alias, slugify
from brainkeep.store.base import Store


@dataclass(frozen=True)
class Resolution:
    """The best page for a name, how it matched, and the runners-up."""

    best: Page | None
    matched_by: str | None  # alias | title | slug | slug_suffix
    runners_up: tuple[Page, ...] = ()


def resolve_entity(
    store: Store, source_id: str, name: str, *, include_private: bool
) -> Resolution:
    """Resolve ``name`` to a page (never raises on a miss)."""
    text = (name or "").strip()
    if not text:
        return Resolution(None, None)
    norm = normalize_alias(text)
    lowered = text.lower()
    tiers: list[tuple[str, list[Page]]] = []
    if norm:
        tiers.append(("alias", store.find_pages_by_alias(source_id, norm)))
        tiers.append(("title", store.find_pages_by_title(source_id, norm)))
    slug_hits: list[Page] = []
    if is_valid_slug(lowered):
        exact = store.get_page(source_id, lowered)
        if exact:
            slug_hits.append(exact)
    tiers.append(("slug", slug_hits))
    tail = slugify(text).rsplit("/", 1)[-1]
    if tail:
        tiers.append(("slug_suffix", store.find_pages_by_slug_tail(source_id, tail)))

    best: Page | None = None
    matched_by: str | None = None
    others: dict[str, Page] = {}
    for tier, pages in tiers:
        visible = [p for p in pages if include_private or not p.is_private]
        visible.sort(key=lambda p: (p.updated_at, p.slug), reverse=True)
        for page in visible:
            if best is None:
                best, matched_by = page, tier
            elif page.slug != best.slug:
                others.setdefault(page.slug, page)
    return Resolution(best, matched_by, tuple(others.values()))


def canonical_entity(
    store: Store, source_id: str, name: str | None, *, include_private: bool
) -> str | None:
    """The slug a fact's ``entity`` should be stored under.

    An existing page wins (so 'Alice Example' and 'people/alice-example'
    land on one slug); otherwise the name itself when it is a slug, else its
    slugified form.
    """
    if name is None or not name.strip():
        return None
    resolution = resolve_entity(store, source_id, name, include_private=include_private)
    if resolution.best is not None:
        return resolution.best.slug
    lowered = name.strip().lower()
    return lowered if is_valid_slug(lowered) else (slugify(name) or None)

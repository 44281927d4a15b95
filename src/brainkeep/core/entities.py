"""Entity resolution: which page a name means.

Frozen precedence (MEMORY_VERBS v1): alias > exact title > slug / slug
suffix; within a tier the most recently touched page wins. Private pages are
candidates only for trusted local callers. Which slug a fact's ``entity``
is filed under (these tiers, then a unique strong candidate) is
``core.entity_resolution``.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core.models import Page
from brainkeep.core.ports.pages import PageRepository
from brainkeep.core.slugs import is_valid_slug, normalize_alias, slugify


@dataclass(frozen=True)
class Resolution:
    """The best page for a name, how it matched, and the runners-up."""

    best: Page | None
    matched_by: str | None  # alias | title | slug | slug_suffix
    runners_up: tuple[Page, ...] = ()


def resolve_entity(
    store: PageRepository, source_id: str, name: str, *, include_private: bool
) -> Resolution:
    """Resolve ``name`` to a page (never raises on a miss).

    Ranks: alias 0, exact title 1, exact slug or slug suffix 2. Within a rank
    the most recently touched page wins, then the slug in ascending order.
    """
    text = (name or "").strip()
    if not text:
        return Resolution(None, None)
    norm = normalize_alias(text)
    lowered = text.lower()
    ranked: dict[str, tuple[int, str, Page]] = {}

    def offer(rank: int, how: str, pages: list[Page]) -> None:
        for page in pages:
            if page.is_private and not include_private:
                continue
            if page.slug not in ranked or ranked[page.slug][0] > rank:
                ranked[page.slug] = (rank, how, page)

    if norm:
        offer(0, "alias", store.find_pages_by_alias(source_id, norm))
        offer(1, "title", store.find_pages_by_title(source_id, norm))
    if is_valid_slug(lowered):
        exact = store.get_page(source_id, lowered)
        offer(2, "slug", [exact] if exact else [])
    tail = slugify(text).rsplit("/", 1)[-1]
    if tail:
        offer(2, "slug_suffix", store.find_pages_by_slug_tail(source_id, tail))
    if not ranked:
        return Resolution(None, None)
    order = sorted(ranked.values(), key=lambda r: r[2].slug)
    order.sort(key=lambda r: _touched(r[2]), reverse=True)
    order.sort(key=lambda r: r[0])
    rank, how, best = order[0]
    return Resolution(best, how, tuple(r[2] for r in order[1:]))


def _touched(page: Page) -> str:
    return max(page.updated_at, page.last_retrieved_at or "")


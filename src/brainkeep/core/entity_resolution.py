"""Which entity slug a fact's ``entity`` names: the one rule for writes and fact reads.

``remember`` (MCP, HTTP, the CLI) files a fact under the slug this returns,
and ``recall``, the console's memory filter and ``canonical_entity`` read
facts under the same slug, so a name written and a name read always agree.

Tiers, first hit wins:

1. ``slug`` / ``title`` / ``alias``: the frozen ``entity()`` precedence
   (``core.entities.resolve_entity``); other pages of that tier or a lower
   one come back as ``candidates``.
2. ``candidate``: a name no page carries exactly, but that one page, and only
   one, answers to (``core.entity_names``): a leading part of its title or
   an alias ("Alice" -> "Alice Chen"), or a one-letter typo of a long name
   ("Alcie Chen"). A name given as a slug (it holds a ``/``) never takes this
   tier: an explicit ``people/alice`` is kept, as the page created later
   will have it.
3. ``ambiguous``: several pages answer (two Alices): the fact is filed under
   the name's own slug, exactly as a new name, and ``candidates`` lists them
   so the caller can pass the slug it means. Nothing is guessed.
4. ``new``: no page: the name's own slug (the name itself when it is a valid
   slug, else slugified), with keyword look-alikes as ``candidates``
   ("did you mean").

Candidates come from the title/alias keyword index (the ``page`` kind), so
the tier costs one or two indexed reads, and only for names the exact tiers
missed. Private pages are candidates only for trusted local callers.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core.entities import resolve_entity
from brainkeep.core.entity_names import is_leading_part, typo_word
from brainkeep.core.ports.composites import PageSearchStore
from brainkeep.core.query import PageScope, QueryTerms
from brainkeep.core.retrieval import PAGE
from brainkeep.core.slugs import is_valid_slug, normalize_alias, slugify

# Pages one candidate read may return. A read that fills it cannot prove a
# match unique, so a leading part is then `ambiguous` and the typo tier abstains.
CANDIDATE_POOL = 50
# Title/alias matches the read may rank (core.query.QueryTerms.row_budget):
# twice the pool, so a word in more titles than this fills the pool. Ranking
# is what a name costs (~4 us a row): "Project" on a brain of 4,000 projects
# took 26 ms ranked in full, and a new name costs this on every remember.
CANDIDATE_ROW_BUDGET = 2 * CANDIDATE_POOL
CANDIDATES_SHOWN = 5
MAX_NAME_WORDS = 8  # longer "names" are sentences: no candidate tier
VIAS = ("slug", "title", "alias", "candidate", "new", "ambiguous")
_VIA_OF_TIER = {"alias": "alias", "title": "title", "slug": "slug", "slug_suffix": "slug"}


@dataclass(frozen=True)
class EntityCandidate:
    """A page a name may mean."""

    slug: str
    title: str


@dataclass(frozen=True)
class EntityResolution:
    """What a fact's ``entity`` input resolved to, and how.

    Attributes:
        input: The name as given (trimmed).
        slug: The slug the fact is filed (or read) under; None only for a
            name with no letter or digit (the fact then has no entity).
        via: One of ``VIAS``.
        candidates: Runners-up (exact tiers), the pages a name could mean
            (``ambiguous``) or look-alikes (``new``); at most ``CANDIDATES_SHOWN``.
        matched: For ``candidate``: the title or (normalized) alias the name was taken for.
        reason: For ``candidate``: ``leading_part`` or ``typo``.
    """

    input: str
    slug: str | None
    via: str
    candidates: tuple[EntityCandidate, ...] = ()
    matched: str | None = None
    reason: str | None = None

    @property
    def found(self) -> bool:
        """Whether the name reached an existing page."""
        return self.via not in ("new", "ambiguous")


@dataclass(frozen=True)
class _Named:
    slug: str
    title: str
    names: tuple[str, ...]  # normalized title, then normalized aliases

    def candidate(self) -> EntityCandidate:
        return EntityCandidate(self.slug, self.title)


def own_slug(name: str) -> str | None:
    """The slug a name is filed under when it names no page: itself if a slug, else slugified."""
    lowered = name.strip().lower()
    return lowered if is_valid_slug(lowered) else (slugify(name) or None)


def resolve_fact_entity(
    store: PageSearchStore, source_id: str, name: str | None, *, include_private: bool
) -> EntityResolution | None:
    """Resolve a fact's ``entity`` input (None for no entity); never raises on a miss."""
    text = name.strip() if isinstance(name, str) else ""
    if not text:
        return None
    exact = resolve_entity(store, source_id, text, include_private=include_private)
    if exact.best is not None and exact.matched_by is not None:
        runners = tuple(EntityCandidate(p.slug, p.title or p.slug) for p in exact.runners_up)
        return EntityResolution(text, exact.best.slug, _VIA_OF_TIER[exact.matched_by],
                                runners[:CANDIDATES_SHOWN])
    literal = own_slug(text)
    words = normalize_alias(text).split()
    finder = _Finder(store, source_id, PageScope(include_private))
    if "/" in text or not words or len(words) > MAX_NAME_WORDS:
        return EntityResolution(text, literal, "new", finder.look_alikes(words))
    return finder.resolve(text, words, literal)


def canonical_entity(
    store: PageSearchStore, source_id: str, name: str | None, *, include_private: bool
) -> str | None:
    """The slug a fact's ``entity`` is stored and read under (``resolve_fact_entity``)."""
    resolution = resolve_fact_entity(store, source_id, name, include_private=include_private)
    return resolution.slug if resolution is not None else None


@dataclass(frozen=True)
class _Finder:
    store: PageSearchStore
    source_id: str
    scope: PageScope

    def resolve(self, text: str, words: list[str], literal: str | None) -> EntityResolution:
        named, full = self._named(words)
        leading = [n for n in named if any(is_leading_part(words, nm.split()) for nm in n.names)]
        if len(leading) == 1 and not full:
            page = leading[0]
            matched = next(nm for nm in page.names if is_leading_part(words, nm.split()))
            return EntityResolution(text, page.slug, "candidate",
                                    matched=page.title if matched == page.names[0] else matched,
                                    reason="leading_part")
        if leading:
            return EntityResolution(text, literal, "ambiguous", _shown(leading))
        norm = " ".join(words)
        typos = [(n, nm, w) for n in named for nm in n.names if (w := typo_word(norm, nm))]
        pages = list({n.slug: n for n, _, _ in typos}.values())
        if len(pages) == 1 and not full:
            page, matched, typed = typos[0]
            if not self._word_elsewhere(typed, page.slug):
                return EntityResolution(text, page.slug, "candidate",
                                        matched=page.title if matched == page.names[0] else matched,
                                        reason="typo")
        elif len(pages) > 1:
            return EntityResolution(text, literal, "ambiguous", _shown(pages))
        return EntityResolution(text, literal, "new", _shown(named))

    def look_alikes(self, words: list[str]) -> tuple[EntityCandidate, ...]:
        """Pages whose title or aliases share a word with ``words``, best first."""
        if not words or len(words) > MAX_NAME_WORDS:
            return ()
        return _shown(self._named(words)[0])

    def _named(self, words: list[str]) -> tuple[list[_Named], bool]:
        """Visible pages with any of ``words`` in their title or aliases, best first, and
        whether the read filled its pool (then it cannot prove a match unique).

        One any-term read, cost-bounded (``CANDIDATE_ROW_BUDGET``): a page holding
        every word holds the rarest one, which the engine always keeps; when
        even that word is in more titles than the budget, only its newest
        matches are ranked, and they fill the pool.
        """
        terms = QueryTerms(tuple(dict.fromkeys(words)), row_budget=CANDIDATE_ROW_BUDGET)
        hits = self.store.search_index(self.source_id).keyword(
            PAGE, terms, self.scope, CANDIDATE_POOL)
        full = len(hits) >= CANDIDATE_POOL
        if full:  # nothing can be picked: the best few are enough to show and to tell ambiguous
            hits = hits[: 2 * CANDIDATES_SHOWN]
        heads = self.store.page_heads(self.source_id, [h.id for h in hits],
                                      include_private=self.scope.include_private)
        ordered = [heads[h.id] for h in hits if h.id in heads]
        aliases = self.store.alias_norms_for(self.source_id, [h.slug for h in ordered])
        named = [
            _Named(h.slug, h.title or h.slug,
                   (normalize_alias(h.title or ""), *sorted(aliases.get(h.slug, ()))))
            for h in ordered
        ]
        return named, full

    def _word_elsewhere(self, word: str, slug: str) -> bool:
        """Whether ``word`` is a word of another page's title or aliases (a real name)."""
        named, _ = self._named([word])
        return any(n.slug != slug and any(word in nm.split() for nm in n.names) for n in named)


def _shown(named: list[_Named]) -> tuple[EntityCandidate, ...]:
    unique: dict[str, _Named] = {}
    for n in named:
        unique.setdefault(n.slug, n)  # the first (best ranked) occurrence wins
    return tuple(n.candidate() for n in list(unique.values())[:CANDIDATES_SHOWN])

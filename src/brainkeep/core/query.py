"""Query analysis: the one place user text becomes search terms.

Core analyses a query into a ``QueryTerms`` value and hands it to the
engine's ``SearchIndex`` (``core/ports/search_index.py``); how an engine matches
terms (an FTS5 query, a tsquery, ...) is the engine's business, so no query
syntax is ever built here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from brainkeep.core.slugs import strip_accents

MAX_QUERY_TERMS = 16

# Function words dropped from page and fact queries: OR-ing them in would
# match nearly every row (slow ranking over everything) and add nothing to
# the rank. gRPC recall keeps them (``keep_stopwords``): a memory is short,
# and "not" or "no" can be what a lexical recall is looking for.
STOPWORDS = frozenset(
    "a about after all also am an and any are as at be been before being but by can could "
    "did do does doing during for from had has have having he her here hers him his how i "
    "if in into is it its itself just me more most my no nor not now of off on once only "
    "or other our ours out over own same she should so some such than that the their them "
    "then there these they this those through to too under until up very was we were what "
    "when where which while who whom why will with would you your yours".split()
)


@dataclass(frozen=True)
class QueryTerms:
    """An analysed query, engine-neutral.

    Attributes:
        terms: Normalised (lowercase, accent-folded) words, de-duplicated, in
            query order; each is matched as a whole word.
        require_all: Every term must occur (else any term may).
        row_budget: For an any-term match, a cost bound the engine may apply:
            once the rarest terms already match more than this many rows it
            may leave out commoner terms, and rank only the newest matches of
            a term that common (its rank weight is nearly flat anyway).
            ``None``: match every term, rank every match.
    """

    terms: tuple[str, ...]
    require_all: bool = False
    row_budget: int | None = None

    def __bool__(self) -> bool:
        return bool(self.terms)

    def every(self) -> QueryTerms:
        """The strict variant: rows holding every term (no cost bound)."""
        return replace(self, require_all=True, row_budget=None)

    def any(self, *, row_budget: int | None = None) -> QueryTerms:
        """The loose variant: rows holding any term, optionally cost-bounded."""
        return replace(self, require_all=False, row_budget=row_budget)


def words_of(text: str) -> list[str]:
    """Lowercase, accent-folded words (accent folding only when needed: it is slow)."""
    folded = text.lower() if text.isascii() else strip_accents(text).lower()
    return re.findall(r"\w+", folded)


def query_terms(query: str, *, keep_stopwords: bool = False) -> QueryTerms:
    """Content terms of a query: deduplicated, capped, stopwords dropped unless kept.

    Dropping stopwords never empties a query: a query of function words only
    ("who is it") keeps them.
    """
    words = list(dict.fromkeys(words_of(query)))
    if not keep_stopwords:
        words = [w for w in words if w not in STOPWORDS] or words
    return QueryTerms(tuple(words[:MAX_QUERY_TERMS]))


@dataclass(frozen=True)
class PageScope:
    """Which pages a page or chunk search may return."""

    include_private: bool  # False: pages with ``visibility: private`` are left out

"""Which retrieved items are relevant enough to inject for one prompt.

The floor is lexical on purpose: it is computed from the envelope text, so a
local keyword answer and a remote hybrid answer are judged by one rule, and
a prompt of only function words ("ok, go on") injects nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from brainkeep.core.query import STOPWORDS
from brainkeep.core.text_budget import estimate_tokens

# A prompt term is a word of 3+ letters or digits that is no function word.
_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)
# Shorter words that still carry meaning in a prompt (version tags, "db", "ui").
_PROMPT_FILLER = frozenset(
    "please thanks thank okay yes yeah sure tell know think want need let lets make "
    "could would should like just also really get got use using used one two".split()
)
PREFIX = 5  # words match on their first five letters: "decided" ~ "decision"


@dataclass(frozen=True)
class Item:
    """One injectable memory: a fact or a page snippet.

    Attributes:
        key: Stable identity for per-session de-duplication (``fact:<id>``,
            ``page:<slug>#<digest>``).
        kind: ``fact`` or ``page``.
        text: What is shown (one line for a fact, a snippet for a page).
        source: Where it came from (entity slug, page slug or provenance).
        pinned: Named by the prompt (an entity the prompt mentions): it passes
            the relevance floor whatever its words.
    """

    key: str
    kind: str
    text: str
    source: str
    pinned: bool = False

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text) + estimate_tokens(self.source) + 2


def _stem(word: str) -> str:
    return word[:PREFIX]


def terms(text: str) -> frozenset[str]:
    """The content words of ``text`` (lowercased, stemmed by prefix)."""
    words = (w.lower() for w in _WORD.findall(text or ""))
    return frozenset(_stem(w) for w in words if w not in STOPWORDS and w not in _PROMPT_FILLER)


def overlap(prompt_terms: frozenset[str], text: str) -> float:
    """The share of the prompt's content words that ``text`` contains (0..1)."""
    if not prompt_terms:
        return 0.0
    return len(prompt_terms & terms(text)) / len(prompt_terms)


@dataclass(frozen=True)
class Selection:
    """What one prompt injects: the items kept, their cost, what was held back."""

    items: tuple[Item, ...]
    tokens: int
    below_floor: int
    repeated: int
    over_budget: int


def select(
    prompt: str,
    candidates: Iterable[Item],
    *,
    seen: Sequence[str] | frozenset[str],
    budget: int,
    floor: float,
) -> Selection:
    """Keep candidates in order that clear ``floor``, were not injected yet, and fit ``budget``.

    A term match needs at least one shared content word and ``floor`` of the
    prompt's content words (at least two when the prompt has four or more),
    so one common word in a long prompt does not drag in a page.
    """
    wanted = terms(prompt)
    done = set(seen)
    kept: list[Item] = []
    used = below = repeated = over = 0
    need = max(1, round(floor * len(wanted)), 2 if len(wanted) >= 4 else 1)
    for item in candidates:
        if item.key in done:
            repeated += 1
            continue
        if not item.pinned and len(wanted & terms(item.text + " " + item.source)) < need:
            below += 1
            continue
        if used + item.tokens > budget:
            over += 1
            continue
        done.add(item.key)
        kept.append(item)
        used += item.tokens
    return Selection(tuple(kept), used, below, repeated, over)

"""Pseudo-relevance feedback for page search: expansion terms from the first pass.

RM3-style (Lavrenko & Croft's relevance model, interpolated with the query):
the best first-pass pages are taken as relevant, each word w gets
``P(w|R) = sum_d P(d|q) * tf(w, d) / |d|`` with ``P(d|q)`` the page's fused
score normalised over the feedback pages, and the heaviest words not already
in the query become one more (small-weight) keyword list. Function words
never count; how common a word is in the whole brain is left to BM25's idf
in the second pass (and the engine's row budget bounds its cost).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from brainkeep.core.query import STOPWORDS, words_of


def expansion_terms(
    docs: list[tuple[str, float]], query_terms: tuple[str, ...], count: int
) -> tuple[str, ...]:
    """The ``count`` heaviest feedback words of ``docs`` ((text, first-pass score) pairs)."""
    total = sum(max(score, 0.0) for _, score in docs)
    if total <= 0 or count <= 0:
        return ()
    skip = set(query_terms) | STOPWORDS
    weights: dict[str, float] = defaultdict(float)
    for text, score in docs:
        share = max(score, 0.0) / total
        words = [w for w in words_of(text) if len(w) > 1 and w not in skip]
        if not words or share <= 0:
            continue
        for word, tf in Counter(words).items():
            weights[word] += share * tf / len(words)
    ranked = sorted(weights, key=lambda w: (-weights[w], w))
    return tuple(ranked[:count])

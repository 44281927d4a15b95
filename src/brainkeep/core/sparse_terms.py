"""Values of the learned-sparse arm: a text's weighted vocabulary terms and a row to store.

The encoder (``providers/sparse_encoder.py``) makes them, the engine's
``SparseIndex`` (``core/ports/sparse_index.py``) stores and searches them,
``core/sparse.py`` connects the two. A score is the dot product of two
vectors' weights over the terms they share.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class SparseTerms:
    """Non-zero vocabulary terms (ascending ids) and their positive weights."""

    terms: np.ndarray  # int32
    weights: np.ndarray  # float32

    @classmethod
    def of(cls, mapping: dict[int, float]) -> SparseTerms:
        """From ``term -> weight`` (non-positive weights dropped)."""
        items = sorted((t, w) for t, w in mapping.items() if w > 0)
        return cls(np.array([t for t, _ in items], dtype=np.int32),
                   np.array([w for _, w in items], dtype=np.float32))

    def __len__(self) -> int:
        return len(self.terms)

    def as_dict(self) -> dict[int, float]:
        return {int(t): float(w) for t, w in zip(self.terms, self.weights, strict=True)}


@dataclass(frozen=True)
class NewSparse:
    """A sparse vector to store for one chunk or memory (replacing any earlier one)."""

    kind: str
    item_id: int
    source_id: str
    page_id: int | None
    private: bool
    model: str
    text_hash: str
    vector: SparseTerms

"""PostgreSQL's ``SparseIndex``: pgvector ``sparsevec`` searched by inner product.

The column is ``sparsevec(30522)`` (migration 0017), bound as pgvector's
text form ``{i:w,...}/30522`` (1-based indices), at most ``HNSW_MAX_TERMS``
of its heaviest terms (pgvector's HNSW limit; a text has ~120). Search is
``ORDER BY vector <#> q`` over the source's rows of one kind and model:
through the HNSW index (``sparsevec_ip_ops``, migration 0017) with an
iterative scan, so the filter cannot starve the answer, when the kind holds
more than ``EXACT_MAX`` rows, else an exact scan (the sort expression is
written so the planner cannot use the index). Measured at 20K rows: exact
p50 104 ms, HNSW (ef_search 200) 8 ms with top-10 recall by score 0.996
(docs/search.md, "Learned sparse"): the one approximate answer of the arm;
SQLite's is exact.

Without pgvector the table does not exist (the migration is skipped): every
method then answers "nothing stored" and writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from brainkeep.core.ports.search_index import SearchScope
from brainkeep.core.retrieval import CHUNK, MEMORY, EmbedTask, ScoredId
from brainkeep.core.sparse_terms import NewSparse, SparseTerms
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.sql.dialect import POSTGRES, SQL
from brainkeep.store.sql.search_scope import vector_sees_private
from brainkeep.store.sql.sparse import SparseRows

VOCAB_SIZE = 30522
HNSW_MAX_TERMS = 1000
# Kinds of at most this many rows are scanned exactly (a few ms).
EXACT_MAX = 2000
_SETTINGS = {"hnsw.ef_search": 200, "hnsw.iterative_scan": "relaxed_order"}


def sparsevec_text(vector: SparseTerms, most: int = HNSW_MAX_TERMS) -> str:
    """pgvector's text form of a sparse vector (indices are 1-based there), its
    ``most`` heaviest terms."""
    terms, weights = vector.terms, vector.weights
    if len(terms) > most:
        keep = np.sort(np.argsort(-weights, kind="stable")[:most])
        terms, weights = terms[keep], weights[keep]
    pairs = ",".join(f"{int(t) + 1}:{float(w):.6g}" for t, w in zip(terms, weights, strict=True))
    return f"{{{pairs}}}/{VOCAB_SIZE}"


class PostgresSparseIndex(SparseRows):
    """``SparseIndex`` over one PostgreSQL brain's source and model."""

    value_sql = "?::sparsevec"

    def __init__(self, db: PostgresEngine, source_id: str, model: str) -> None:
        super().__init__(SQL(db, POSTGRES), db, source_id, model)
        self.available = db.vector_available
        self.exact_max = EXACT_MAX  # kinds of at most this many rows are scanned exactly

    def _vector_param(self, vector: SparseTerms) -> str:
        return sparsevec_text(vector)

    def put(self, rows: Sequence[NewSparse]) -> int:
        return super().put(rows) if self.available else 0

    def missing(self, kind: str, *, after_item: int, limit: int) -> list[EmbedTask]:
        return super().missing(kind, after_item=after_item, limit=limit) if self.available else []

    def count_missing(self) -> dict[str, int]:
        return super().count_missing() if self.available else {CHUNK: 0, MEMORY: 0}

    def count(self) -> dict[str, int]:
        return super().count() if self.available else {CHUNK: 0, MEMORY: 0}

    def prune(self) -> int:
        return 0  # triggers drop the vectors themselves; there is no side index

    def search(
        self, kind: str, query: SparseTerms, scope: SearchScope | None, k: int
    ) -> list[ScoredId]:
        if not self.available or k <= 0 or not len(query):
            return []
        privacy = "" if vector_sees_private(scope) else "AND private = 0"
        q = sparsevec_text(query)
        where = f"WHERE source_id = ? AND kind = ? AND model = ? {privacy}"
        few = int(self.sql.scalar(
            f"SELECT COUNT(*) FROM (SELECT 1 FROM sparse_vectors {where} LIMIT ?) s",
            (self.source_id, kind, self.model, self.exact_max + 1))) <= self.exact_max
        # <#> is the negated inner product: ascending order is best first. "+ 0"
        # hides the index from the planner (the exact scan of a small kind).
        order = "(vector <#> ?::sparsevec) + 0" if few else "vector <#> ?::sparsevec"
        statement = (f"SELECT item_id, page_id, -(vector <#> ?::sparsevec) AS score "
                     f"FROM sparse_vectors {where} ORDER BY {order}, item_id LIMIT ?")
        params = (q, self.source_id, kind, self.model, q, k)
        if few:
            rows = self.sql.all(statement, params)
        else:
            with self.db.read_only(_SETTINGS):
                rows = self.sql.all(statement, params)
        return [ScoredId(int(r[0]), int(r[1] or 0), float(r[2])) for r in rows if r[2] > 0]

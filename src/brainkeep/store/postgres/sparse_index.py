"""PostgreSQL's ``SparseIndex``: pgvector ``sparsevec`` searched by inner product.

The column is ``sparsevec(30522)`` (migration 0020), bound as pgvector's
text form ``{i:w,...}/30522`` (1-based indices). Search is an exact scan:
``ORDER BY vector <#> q`` over the source's rows of one kind and model,
which the ``(source_id, kind, model)`` index narrows. An HNSW index over
``sparsevec_ip_ops`` was measured against it (docs/search.md, "Learned
sparse"): at the sizes measured the scan answered within a few
milliseconds and the graph is approximate, so none is built.

Without pgvector the table does not exist (the migration is skipped): every
method then answers "nothing stored" and writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from brainkeep.core.ports.search_index import SearchScope
from brainkeep.core.retrieval import CHUNK, MEMORY, EmbedTask, ScoredId
from brainkeep.core.sparse_terms import NewSparse, SparseTerms
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.sql.dialect import POSTGRES, SQL
from brainkeep.store.sql.search_scope import vector_sees_private
from brainkeep.store.sql.sparse import SparseRows

VOCAB_SIZE = 30522


def sparsevec_text(vector: SparseTerms) -> str:
    """pgvector's text form of a sparse vector (indices are 1-based there)."""
    pairs = ",".join(f"{int(t) + 1}:{float(w):.6g}"
                     for t, w in zip(vector.terms, vector.weights, strict=True))
    return f"{{{pairs}}}/{VOCAB_SIZE}"


class PostgresSparseIndex(SparseRows):
    """``SparseIndex`` over one PostgreSQL brain's source and model."""

    value_sql = "?::sparsevec"

    def __init__(self, db: PostgresEngine, source_id: str, model: str) -> None:
        super().__init__(SQL(db, POSTGRES), db, source_id, model)
        self.available = db.vector_available

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
        # <#> is the negated inner product: ascending order is best first.
        rows = self.sql.all(
            "SELECT item_id, page_id, -(vector <#> ?::sparsevec) AS score FROM sparse_vectors "
            f"WHERE source_id = ? AND kind = ? AND model = ? {privacy} "
            "ORDER BY vector <#> ?::sparsevec, item_id LIMIT ?",
            (q, self.source_id, kind, self.model, q, k))
        return [ScoredId(int(r[0]), int(r[1] or 0), float(r[2])) for r in rows if r[2] > 0]

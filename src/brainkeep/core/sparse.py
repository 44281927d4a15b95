"""One brain's learned-sparse side: the encoder, its rows and its search (docs/search.md).

Core receives a ``SparseEncoder`` object (built by the composition root when
config ``sparse.provider`` is ``local``) and the engine's ``SparseIndex``;
this module encodes chunk and memory text, stores it beside each write, and
answers the page and fact arms' "rows by learned-sparse score" questions.
Like the vector side it never fails a write or a search for the model's
sake: a row left without a vector is ``brainkeep embed``'s job.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from brainkeep.core.embedding import embedding_text, task_text, text_hash
from brainkeep.core.models import Page
from brainkeep.core.ports.composites import VectorStore
from brainkeep.core.ports.search_index import SearchScope, SparseIndex
from brainkeep.core.query import PageScope
from brainkeep.core.retrieval import CHUNK, MEMORY, EmbedTask, ScoredId
from brainkeep.core.sparse_terms import NewSparse, SparseTerms
from brainkeep.errors import Unavailable

log = logging.getLogger("brainkeep.sparse")

QUERY_CACHE_SIZE = 64
# Searches encode at most this many of the newest memories written without a
# sparse vector (older ones are `brainkeep embed`'s job), as the vector side does.
CATCH_UP_LIMIT = 32


class SparseEncoder(Protocol):
    """What core needs of a sparse encoder (``providers.sparse_encoder.SparseEncoder``)."""

    @property
    def model_id(self) -> str: ...
    def encode(self, texts: Sequence[str]) -> Sequence[Any]:
        """One vector per text with ``terms`` (ascending ids) and ``weights``."""
        ...


class Sparse:
    """The encoder plus the source's ``SparseIndex``; thread-safe."""

    def __init__(self, store: VectorStore, encoder: SparseEncoder, source_id: str, *,
                 index: SparseIndex) -> None:
        self.store = store
        self.encoder = encoder
        self.source_id = source_id
        self.model = encoder.model_id
        self.index = index
        self._cache: OrderedDict[str, SparseTerms] = OrderedDict()
        self._lock = threading.Lock()
        self._memory_floor = store.max_memory_id()

    def using(self, encoder: SparseEncoder) -> Sparse:
        """The same side with another encoder of the same model (``brainkeep embed``)."""
        if encoder.model_id != self.model:
            raise ValueError(f"{encoder.model_id} is not {self.model}")
        return Sparse(self.store, encoder, self.source_id, index=self.index)

    def encode(self, texts: Sequence[str]) -> list[SparseTerms]:
        """Vectors of ``texts`` (raises ``Unavailable`` when the model cannot load)."""
        return [SparseTerms(v.terms, v.weights) for v in self.encoder.encode(list(texts))]

    def query(self, text: str) -> SparseTerms:
        """The query's vector; the page and fact arms share it through a small cache."""
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        vector = self.encode([text])[0]
        with self._lock:
            self._cache[text] = vector
            while len(self._cache) > QUERY_CACHE_SIZE:
                self._cache.popitem(last=False)
        return vector

    # -- writes (core.pages.ChunkEmbedder) -------------------------------------

    def prepare_chunks(self, texts: Sequence[str], title: str = "", context: str = ""
                       ) -> dict[str, SparseTerms] | None:
        """Vectors of a page's chunk texts, by text hash, before the write transaction.

        The page's search context is not read: a lexical arm ranks a turn by
        its own words (with its neighbour's, a reply matches the question's
        words: docs/search.md "Context for each turn").
        """
        readable = list(dict.fromkeys(embedding_text(c, title) for c in texts))
        try:
            vectors = self.encode(readable)
        except Unavailable as exc:
            log.warning("page saved without sparse vectors (`brainkeep embed` fills them "
                        "in): %s", exc.message)
            return None
        return {text_hash(t): v for t, v in zip(readable, vectors, strict=True)}

    def write_page(self, page: Page, prepared: dict[str, SparseTerms]) -> None:
        """Store the page's chunk vectors (inside the page's transaction)."""
        rows = []
        for chunk_id, text in self.store.page_chunk_texts(page.id):
            digest = text_hash(embedding_text(text, page.title))
            vector = prepared.get(digest)
            if vector is not None:
                rows.append(NewSparse(CHUNK, chunk_id, page.source_id, page.id,
                                      page.is_private, self.model, digest, vector))
        self.index.put(rows)

    def rows_for(self, tasks: Sequence[EmbedTask], vectors: Sequence[SparseTerms]
                 ) -> list[NewSparse]:
        return [NewSparse(t.kind, t.item_id, self.source_id, t.page_id, t.private, self.model,
                          text_hash(task_text(t, context=False)), v)
                for t, v in zip(tasks, vectors, strict=True)]

    # -- search ----------------------------------------------------------------

    def chunk_hits(self, query: str, k: int, *, include_private: bool) -> list[ScoredId]:
        """Chunks by learned-sparse score, best first (``Unavailable`` if encoding fails)."""
        return self.index.search(CHUNK, self.query(query), PageScope(include_private), k)

    def memory_hits(self, query: str, k: int, *, scope: SearchScope | None) -> list[ScoredId]:
        """Memory candidates by learned-sparse score (callers re-check ``scope``)."""
        self.catch_up_memories()
        return self.index.search(MEMORY, self.query(query), scope, k)

    def catch_up_memories(self) -> int:
        """Encode the newest memories written without a sparse vector; best effort."""
        if self.store.in_transaction():
            return 0
        newest = self.store.max_memory_id()
        if newest <= self._memory_floor:
            return 0
        tasks = self.index.missing(MEMORY, after_item=self._memory_floor, limit=CATCH_UP_LIMIT)
        if tasks:
            try:
                vectors = self.encode([task_text(t, context=False) for t in tasks])
            except Unavailable as exc:
                log.warning("memory sparse catch-up postponed: %s", exc.message)
                return 0
            with self.store.transaction():
                self.index.put(self.rows_for(tasks, vectors))
        self._memory_floor = newest if len(tasks) < CATCH_UP_LIMIT else tasks[-1].item_id
        return len(tasks)


@dataclass(frozen=True)
class ChunkEncoders:
    """Several ``core.pages.ChunkEmbedder`` as one (dense vectors and sparse vectors).

    Each prepares before the write transaction and writes inside it; one that
    failed to prepare (None) is skipped, leaving its rows to `brainkeep embed`.
    """

    parts: tuple[Any, ...]

    def prepare_chunks(self, texts: Sequence[str], title: str = "", context: str = ""
                       ) -> tuple[Any, ...]:
        return tuple(p.prepare_chunks(texts, title, context) for p in self.parts)

    def write_page(self, page: Page, prepared: tuple[Any, ...]) -> None:
        for part, ready in zip(self.parts, prepared, strict=True):
            if ready is not None:
                part.write_page(page, ready)

    def stored_only(self) -> Any:
        """For bulk text-only writes (``core.embedding.stored_vectors_only``): the dense
        part restricted to stored vectors; sparse vectors are backfilled later."""
        from brainkeep.core.embedding import stored_vectors_only

        narrowed = [n for p in self.parts if (n := stored_vectors_only(p)) is not None]
        return narrowed[0] if narrowed else None


def chunk_encoders(*parts: Any) -> Any:
    """The page embedder for these parts (None entries dropped; one part: itself)."""
    present = tuple(p for p in parts if p is not None)
    if not present:
        return None
    return present[0] if len(present) == 1 else ChunkEncoders(present)

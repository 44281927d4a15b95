"""One brain's embedding side: the provider, its model space and vector search.

Core receives an ``EmbeddingProvider`` object (built by the composition root
from config), never a transport. Every vector written here carries the
provider's model id and dimension, and every index loads only rows of that
space, so vectors of two models are never compared.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from brainkeep.core.markdown import chunk_heading, page_heading, search_context_of
from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.models import Memory, Page
from brainkeep.core.ports.composites import EmbeddingStore
from brainkeep.core.ports.search_index import SearchIndex, SearchScope
from brainkeep.core.query import PageScope, words_of
from brainkeep.core.retrieval import CHUNK, MEMORY, EmbedTask, NewEmbedding, ScoredId
from brainkeep.errors import Unavailable

log = logging.getLogger("brainkeep.embeddings")

# meta keys: the model space this brain's vectors were last fully built in.
SPACE_MODEL_KEY = "embeddings.model"
SPACE_DIM_KEY = "embeddings.dim"
QUERY_CACHE_SIZE = 64
# gRPC Remember writes memories without a vector; searches embed at most this
# many of the newest such memories first (older ones are `brainkeep embed`'s job).
CATCH_UP_LIMIT = 32


class Embedder(Protocol):
    """What core needs of an embedding provider (``providers.EmbeddingProvider``)."""

    @property
    def model_id(self) -> str: ...
    @property
    def dimensions(self) -> int: ...
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


_WIKILINK_LABELLED = re.compile(r"\[\[[^\]|]+\|([^\]]+)\]\]")
_WIKILINK = re.compile(r"\[\[(?:[^\]]*/)?([^\]/]+)\]\]")
_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MARKUP = re.compile(r"^#{1,6}\s+|[*_`]{1,3}", re.M)


def embedding_text(chunk: str, title: str = "") -> str:
    """The readable text of a markdown chunk, headed by its page title, as the model sees it.

    ``title`` is the page's ``chunk_heading`` (its title and search context).

    The title goes first unless the chunk starts with it or already says
    every word of it: a
    chunk of Priya's page that never says "Priya" is still about her, and a
    query naming her should find it; a chunk that does say it gains nothing
    from a second copy, which only dilutes a short text's vector (measured on
    LoCoMo, where a turn repeats its speaker and date: vector-only R@1
    0.221 -> 0.243, docs/search.md).

    ``[[people/alice-chen|Alice Chen]]`` becomes ``Alice Chen``, a bare
    ``[[people/alice-chen]]`` becomes ``alice chen``, ``[text](url)`` becomes
    ``text``, heading and emphasis marks go. Slugs and URLs are a third of
    the tokens of a typical linked chunk and carry no meaning the model can
    use: measured on the bench corpus, dropping them doubles embedding
    throughput.
    """
    text = _WIKILINK_LABELLED.sub(r"\1", chunk)
    text = _WIKILINK.sub(lambda m: m.group(1).replace("-", " "), text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MARKUP.sub("", text).strip()
    if (title and not text.lower().startswith(title.lower())
            and not set(words_of(title)) <= set(words_of(text))):
        text = f"{title}\n{text}"
    return text


def task_text(task: EmbedTask, *, context: bool = True) -> str:
    """What a model reads for a backfill row (its text hash keys the row's vector): a
    chunk as ``embedding_text`` under its page's title, with the page's search context
    for the dense model (``context=False``: the learned-sparse arm), a memory as is."""
    if task.kind != CHUNK:
        return task.text
    said = search_context_of(task.context) if context else ""
    return embedding_text(task.text, chunk_heading(task.title, said))


def text_hash(text: str) -> str:
    """Key under which a text's vector can be reused."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def to_blob(vector: np.ndarray) -> bytes:
    """float32 little-endian bytes, the stored form of a vector."""
    return np.asarray(vector, dtype="<f4").tobytes()


@dataclass(frozen=True)
class PreparedChunks:
    """Vectors for a page's chunk texts, computed before the write transaction."""

    by_hash: dict[str, bytes]


class Embeddings:
    """The provider plus vector search over one source (the engine's ``SearchIndex``)."""

    def __init__(
        self, store: EmbeddingStore, provider: Embedder, source_id: str, *, index: SearchIndex
    ) -> None:
        """``index`` must be built for the provider's model space (``store.search_index``)."""
        self.store = store
        self.provider = provider
        self.source_id = source_id
        self.model = provider.model_id
        self.dim = provider.dimensions
        self.index = index
        self._cache: OrderedDict[str, Future[np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()
        self._space_recorded = False
        # Memories that exist when the brain opens are the backfill's job.
        self._memory_floor = store.max_memory_id()

    def using(self, provider: Embedder) -> Embeddings:
        """The same brain side with another provider of the same model space.

        For ``brainkeep embed``, which runs the model tuned for throughput
        rather than for one query's latency.

        Raises:
            ValueError: ``provider`` makes vectors of another model space.
        """
        if (provider.model_id, provider.dimensions) != (self.model, self.dim):
            raise ValueError(f"{provider.model_id}/{provider.dimensions} is not "
                             f"{self.model}/{self.dim}")
        return Embeddings(self.store, provider, self.source_id, index=self.index)

    # -- embedding ---------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit rows for ``texts`` (raises ``Unavailable`` when the provider fails)."""
        vectors = np.asarray(self.provider.embed(list(texts)), dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise Unavailable(
                "The embedding provider returned vectors of the wrong shape.",
                suggestion="Check embeddings.model and embeddings.dimensions in the config.",
                detail=f"expected ({len(texts)}, {self.dim}), got {vectors.shape}",
            )
        return vectors

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector; recall's arms share one model call via a small cache.

        The arms may ask from two threads at once (``core.overlap``): the
        second waits for the first's model call instead of making its own.

        Raises:
            Unavailable: the provider failed (not cached: the next call retries).
        """
        with self._lock:
            entry = self._cache.get(text)
            owner = entry is None
            if entry is None:
                entry = self._cache[text] = Future()
                while len(self._cache) > QUERY_CACHE_SIZE:
                    self._cache.popitem(last=False)
            else:
                self._cache.move_to_end(text)
        if owner:
            try:
                entry.set_result(self.embed([text])[0])
            except BaseException as exc:
                entry.set_exception(exc)
                with self._lock:
                    if self._cache.get(text) is entry:
                        del self._cache[text]
        return entry.result()

    # -- writes ------------------------------------------------------------

    def prepare_chunks(
        self, texts: Sequence[str], title: str = "", context: str = "", *, embed: bool = True
    ) -> PreparedChunks | None:
        """Vectors for chunk texts (their ``embedding_text``): reused when stored, else embedded.

        With ``embed=False`` only stored vectors are reused (the model never
        runs); the other chunks are left to `brainkeep embed`.

        Returns None when the provider is unavailable: the page is saved
        without vectors and `brainkeep embed` fills them in later.
        """
        heading = chunk_heading(title, context)
        hashes = {text_hash(t): t for t in (embedding_text(c, heading) for c in texts)}
        stored = self.store.stored_vectors_by_hash(self.model, self.dim, list(hashes))
        todo = [(h, t) for h, t in hashes.items() if h not in stored]
        if todo and embed:
            try:
                fresh = self.embed([t for _, t in todo])
            except Unavailable as exc:
                log.warning("page saved without vectors (`brainkeep embed` fills them in): %s",
                            exc.message)
                return None
            stored.update({h: to_blob(v) for (h, _), v in zip(todo, fresh, strict=True)})
        return PreparedChunks(stored)

    def write_page(self, page: Page, prepared: PreparedChunks) -> None:
        """Store vectors for the page's current chunks (inside the page's transaction)."""
        rows = []
        heading = page_heading(page)
        for chunk_id, text in self.store.page_chunk_texts(page.id):
            digest = text_hash(embedding_text(text, heading))
            blob = prepared.by_hash.get(digest)
            if blob is not None:
                rows.append(NewEmbedding(CHUNK, chunk_id, page.source_id, page.id,
                                         page.is_private, self.model, self.dim, digest, blob))
        self.store.put_embeddings(rows)
        self._record_space()

    def embed_memory(self, text: str) -> np.ndarray | None:
        """One memory's vector, or None when the provider fails (backfilled later)."""
        try:
            return self.embed([text])[0]
        except Unavailable as exc:
            log.warning("memory saved without a vector (backfilled later): %s", exc.message)
            return None

    def write_memory(self, memory: Memory, vector: np.ndarray) -> None:
        """Store a memory's vector (inside the memory's transaction)."""
        self.store.put_embeddings([
            NewEmbedding(MEMORY, memory.id, memory.source_id, None,
                         memory.visibility != "world", self.model, self.dim,
                         text_hash(memory.text), to_blob(vector))
        ])
        self._record_space()

    def _record_space(self) -> None:
        # The first vector of a fresh brain names its model space; afterwards
        # only `brainkeep embed` (which re-embeds everything) may change it.
        if self._space_recorded:
            return
        if self.store.get_meta(SPACE_MODEL_KEY) is None:
            self.store.set_meta(SPACE_MODEL_KEY, self.model)
            self.store.set_meta(SPACE_DIM_KEY, str(self.dim))
        self._space_recorded = True

    def recorded_space(self) -> tuple[str, int] | None:
        """The (model, dim) recorded for this brain, if any."""
        model = self.store.get_meta(SPACE_MODEL_KEY)
        dim = self.store.get_meta(SPACE_DIM_KEY)
        return None if model is None or dim is None else (model, int(dim))

    # -- search ------------------------------------------------------------

    def chunk_hits(self, query: str, k: int, *, include_private: bool) -> list[ScoredId]:
        """Chunks nearest to ``query``, score = cosine (``Unavailable`` if embedding fails).

        With no vectors at all the query is not embedded.
        """
        if not self.index.vector_count(CHUNK):
            return []
        return self.index.nearest(CHUNK, self.embed_query(query), PageScope(include_private), k)

    def memory_hits(
        self, query: str, k: int, *, scope: SearchScope | None, only: set[int] | None = None
    ) -> list[ScoredId]:
        """Memory candidates nearest to ``query``, score = cosine (callers re-check ``scope``).

        Raises:
            Unavailable: embedding the query failed.
        """
        self.catch_up_memories()
        if not self.index.vector_count(MEMORY):
            return []
        return self.index.nearest(MEMORY, self.embed_query(query), scope, k, only=only)

    def catch_up_memories(self) -> int:
        """Embed the newest memories written without a vector (the gRPC path); best effort.

        Only memories written since this brain was opened are looked at, and
        at most ``CATCH_UP_LIMIT`` per call, so a search never pays for a
        backfill.
        """
        if self.store.in_transaction():
            return 0
        newest = self.store.max_memory_id()
        if newest <= self._memory_floor:
            return 0
        tasks = self.store.missing_embeddings(
            self.source_id, MEMORY, self.model, self.dim,
            after_item=self._memory_floor, limit=CATCH_UP_LIMIT,
        )
        if tasks:
            try:
                vectors = self.embed([t.text for t in tasks])
            except Unavailable as exc:
                log.warning("memory vector catch-up postponed: %s", exc.message)
                return 0
            rows = [
                NewEmbedding(MEMORY, t.item_id, self.source_id, None, t.private, self.model,
                             self.dim, text_hash(t.text), to_blob(v))
                for t, v in zip(tasks, vectors, strict=True)
            ]
            with self.store.transaction():
                self.store.put_embeddings(rows)
        if len(tasks) < CATCH_UP_LIMIT:
            self._memory_floor = newest
        else:
            self._memory_floor = tasks[-1].item_id
        return len(tasks)


class StoredVectorsOnly:
    """A page embedder that never runs the model (``core.pages.PageService.embedder``).

    For bulk writes that must not hold the write lock during model runs
    (``import_dir``): a rewritten page's unchanged chunks keep their vectors
    (found by text hash), so the backfill afterwards embeds only changed text.
    """

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings

    def prepare_chunks(self, texts: Sequence[str], title: str = "", context: str = ""
                       ) -> PreparedChunks | None:
        return self.embeddings.prepare_chunks(texts, title, context, embed=False)

    def write_page(self, page: Page, prepared: PreparedChunks) -> None:
        self.embeddings.write_page(page, prepared)


def stored_vectors_only(embedder: object) -> StoredVectorsOnly | None:
    """``embedder`` restricted to stored vectors; None when it is not an ``Embeddings``."""
    if isinstance(embedder, Embeddings):
        return StoredVectorsOnly(embedder)
    # A composite (core.sparse.ChunkEncoders) narrows itself to its dense part.
    narrowed = getattr(embedder, "stored_only", None)
    return narrowed() if narrowed is not None else None


class MemoryVectorSearch:
    """The vector arm of gRPC recall (``core.memory.context.MemoryVectors``).

    Returns candidates only: the Mnemo store applies tenant, scope and ACL
    visibility to them afterwards. A provider failure yields no candidates
    (recall then ranks from its other lists) rather than failing the call.
    """

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings

    def search_memories(
        self, query: str, memory_ids_filter: list[int] | None, limit: int, *,
        scope: MemoryFilter | None = None,
    ) -> list[tuple[int, float]]:
        only = set(memory_ids_filter) if memory_ids_filter is not None else None
        try:
            hits = self.embeddings.memory_hits(query, limit, scope=scope, only=only)
        except Unavailable as exc:
            log.warning("recall without its vector arm: %s", exc.message)
            return []
        return [(hit.id, hit.score) for hit in hits]

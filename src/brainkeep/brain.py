"""Composition: build the services of one brain from its settings.

Each entry point (CLI command, MCP server, gRPC server) calls ``open_brain``
once and hands the resulting ``Brain`` down explicitly. This is also where
the optional providers (embeddings, chat LLM) are built from config; core
services receive provider objects, never a transport or a config file.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from brainkeep import store as engines
from brainkeep.config import Settings
from brainkeep.core import signing
from brainkeep.core.clock import Clock
from brainkeep.core.hybrid import FactSearch
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.facts import FactService
from brainkeep.core.memory.group_commit import GroupCommit
from brainkeep.core.memory.mnemo import MnemoService
from brainkeep.core.models import DEFAULT_SOURCE
from brainkeep.core.overlap import Overlap
from brainkeep.core.pages import PageService
from brainkeep.core.ports.store import Store
from brainkeep.core.quarantine.review import QuarantineService
from brainkeep.core.receipts import ReceiptIssuer
from brainkeep.core.retrieval import CHUNK, MEMORY
from brainkeep.core.search import SearchService
from brainkeep.core.verbs.services import VerbServices
from brainkeep.errors import BrainkeepError
from brainkeep.store.migrate_marker import refuse_half_migrated

# Imported where used (the embedding services, the providers, the SQLite
# engine): they pull in numpy and httpx, which a brain without an embedding
# provider, and a command that never opens a brain, do not need.
if TYPE_CHECKING:
    from brainkeep.core.dedup import EmbeddingSimilarity
    from brainkeep.core.embedding import Embeddings
    from brainkeep.core.hybrid import EmbeddingVectorArm, SparseChunkArm
    from brainkeep.core.sparse import Sparse
    from brainkeep.core.verify_halves import SideWalk
    from brainkeep.providers import ChatSettings, EmbeddingSettings

log = logging.getLogger(__name__)
# Recall's arms and their vector searches run on these beside each other
# (core.overlap: three per recall); past that, reads run on their caller.
OVERLAP_WORKERS = 6

# Marks "build it from the settings" in open_brain (None means "none").
_FROM_SETTINGS: Any = object()


@dataclass
class Brain:
    """One open brain: its store, its optional providers and the services over them."""

    settings: Settings
    store: Store
    clock: Clock = field(default_factory=Clock)
    source_id: str = DEFAULT_SOURCE
    # The chat model behind `synthesize` (a providers.chat.ChatProvider); None = not configured.
    chat: Any = None
    # Why ``chat`` is None although one is configured (bad settings), for `unavailable`.
    chat_error: BrainkeepError | None = None
    # The vector arm of gRPC recall (core.memory.context.MemoryVectors); None = no
    # embedding provider.
    memory_vectors: Any = None
    # A providers.EmbeddingProvider; None = keyword search and degraded_dedup.
    embedder: Any = None
    # Providers this brain built and so must release on close (not ones passed in).
    owned: tuple[Any, ...] = ()
    # Worker threads for reads run beside each other (core.overlap); 0: none.
    overlap_workers: int = OVERLAP_WORKERS
    # A providers.sparse_encoder.SparseEncoder; None = no learned-sparse arm.
    sparse_encoder: Any = None

    def __post_init__(self) -> None:
        if self.embedder is not None and not self.store.vectors_available:
            # PostgreSQL without pgvector: nowhere to keep vectors, so the brain
            # runs as with no provider (keyword search, search_degraded,
            # degraded_dedup); the provider stays in `owned` to be closed.
            log.warning("embeddings disabled: the database has no pgvector extension "
                        "(install it, then restart: keyword search works meanwhile)")
            self.embedder = None
        # One search index per brain: every service shares its caches and
        # vector matrices; it holds vectors of the provider's model space only.
        if self.embedder is not None:
            self.search_index = self.store.search_index(
                self.source_id, model=self.embedder.model_id, dim=self.embedder.dimensions
            )
        else:
            self.search_index = self.store.search_index(self.source_id)
        self.embeddings: Embeddings | None = None
        similarity: EmbeddingSimilarity | None = None
        vector_arm: EmbeddingVectorArm | None = None
        if self.embedder is not None:
            from brainkeep.core.dedup import EmbeddingSimilarity
            from brainkeep.core.embedding import Embeddings, MemoryVectorSearch
            from brainkeep.core.hybrid import EmbeddingVectorArm

            self.embeddings = Embeddings(self.store, self.embedder, self.source_id,
                                         index=self.search_index)
            similarity = EmbeddingSimilarity(self.embeddings)
            vector_arm = EmbeddingVectorArm(self.embeddings)
            if self.memory_vectors is None:
                self.memory_vectors = MemoryVectorSearch(self.embeddings)
        self.sparse = self._sparse_side()
        self.pages = PageService(self.store, self.clock, self.source_id,
                                 embedder=_chunk_encoders(self.embeddings, self.sparse))
        self.quarantine = QuarantineService(self.store, self.clock, self.pages, self.source_id)
        # Threads start on first use: a command that never recalls by query has none.
        self._workers = (ThreadPoolExecutor(max_workers=self.overlap_workers,
                                            thread_name_prefix="brainkeep-arm")
                         if self.overlap_workers > 0 else None)
        self.overlap = Overlap(self.store, self._workers, workers=self.overlap_workers)
        self.fact_search = FactSearch(self.store, self.search_index, self.source_id,
                                      self.embeddings, overlap=self.overlap, sparse=self.sparse)
        # One write discipline for both protocols: MCP facts and Mnemo RPCs
        # commit their memory writes through this one group commit.
        self.writer = GroupCommit(self.store)
        self.facts = FactService(
            self.store,
            self.clock,
            self.source_id,
            similarity=similarity,
            ranker=self.fact_search,
            writer=self.writer,
        )
        self.search = SearchService(
            self.store,
            self.search_index,
            self.source_id,
            vector_arm=vector_arm,
            mode=str(self.settings.get("search.mode") or "hybrid"),
            overlap=self.overlap,
            sparse_arm=_sparse_arm(self.sparse),
            clock=self.clock,
        )
        # Receipts of purging forgets, signed when the process has a signing
        # key (read from the environment at each issue, like `verify --sign`).
        self.receipts = ReceiptIssuer(
            self.store, signing_key=lambda: signing.load_signing_key(None, self.settings.env))
        self.mnemo = MnemoService(
            MnemoContext(self.store, self.clock, self.source_id,
                         vectors=self.memory_vectors, indexer=self.embeddings,
                         index=self.search_index, verify_side=self.verify_side,
                         receipts=self.receipts, writer=self.writer)
        )

    def _sparse_side(self) -> Sparse | None:
        if self.sparse_encoder is None:
            return None
        if not self.store.vectors_available:
            log.warning("sparse search disabled: the database has no pgvector extension")
            return None
        from brainkeep.core.sparse import Sparse

        index = self.search_index.sparse(self.sparse_encoder.model_id)
        return Sparse(self.store, self.sparse_encoder, self.source_id, index=index)

    @property
    def verify_side(self) -> SideWalk:
        """Where a full verify walks the log and pages (brainkeep/verify_process.py)."""
        from brainkeep.core.verify_halves import ThreadSide
        from brainkeep.verify_process import ProcessSide

        return ProcessSide(ThreadSide(self._workers))

    @property
    def workers(self) -> ThreadPoolExecutor | None:
        """The brain's worker threads (reads run beside each other on them; None: none)."""
        return self._workers

    @property
    def verbs(self) -> VerbServices:
        """The services the MEMORY_VERBS functions use (built per call: cheap references).

        Built on each access, not once, so a provider swapped on the brain
        (tests replace ``chat``) is what the next verb call sees.
        """
        return VerbServices(
            store=self.store,
            clock=self.clock,
            source_id=self.source_id,
            facts=self.facts,
            search=self.search,
            fact_search=self.fact_search,
            overlap=self.overlap,
            chat=self.chat,
            chat_error=self.chat_error,
            chat_max_tokens=self.settings.get("chat.max_tokens"),
            receipts=self.receipts,
        )

    def warm(self) -> None:
        """Load the embedding model now instead of on the first call that needs it.

        A serving process calls this in the background right after start, so
        the first recall by query does not wait for the model or for opening
        the vector indexes; calls that need no vectors run meanwhile. No
        provider: nothing to do.

        Raises:
            Unavailable: the configured model cannot be loaded.
        """
        if self.embeddings is not None:
            self.embeddings.embed(["warm-up"])
            for kind in (CHUNK, MEMORY):
                # Counting opens each kind's vector index (an ANN base's map).
                self.search_index.vector_count(kind)

    def close(self) -> None:
        # Buffered recall access counts go out while the store is still open.
        try:
            self.mnemo.flush_reads()
        except BrainkeepError as exc:
            log.warning("recall access counts not written at close: %s", exc.message)
        if self.owned:
            from brainkeep.providers import close_provider

            for provider in self.owned:
                close_provider(provider)
        if self._workers is not None:
            self._workers.shutdown(wait=True)
        self.store.close()


def embedding_settings(settings: Settings) -> EmbeddingSettings:
    """The embeddings.* config keys as provider settings (blank values mean unset)."""
    from brainkeep.providers import EmbeddingSettings

    dims = int(settings.get("embeddings.dimensions") or 0)
    return EmbeddingSettings(
        provider=settings.get("embeddings.provider") or "none",
        model=settings.get("embeddings.model") or None,
        base_url=settings.get("embeddings.base_url") or None,
        dimensions=dims or None,
        api_key_env=settings.get("embeddings.api_key_env") or None,
        timeout_s=float(settings.get("embeddings.timeout_s") or 30.0),
        batch_size=int(settings.get("embeddings.batch_size") or 32),
        worker=settings.get("embeddings.worker") or "process",
    )


def chat_settings(settings: Settings) -> ChatSettings:
    """The chat.* config keys as provider settings (blank values mean unset)."""
    from brainkeep.providers import ChatSettings

    return ChatSettings(
        provider=settings.get("chat.provider") or "none",
        model=settings.get("chat.model") or None,
        base_url=settings.get("chat.base_url") or None,
        api_key_env=settings.get("chat.api_key_env") or None,
        timeout_s=float(settings.get("chat.timeout_s") or 60.0),
    )


def build_embedder(settings: Settings) -> Any:
    """The configured embedding provider, or None (raises ``InvalidInput`` on bad config)."""
    from brainkeep.providers import make_embedding_provider

    return make_embedding_provider(embedding_settings(settings), settings.env)


def _chunk_encoders(*parts: Any) -> Any:
    from brainkeep.core.sparse import chunk_encoders

    return chunk_encoders(*parts)


def _sparse_arm(sparse: Sparse | None) -> SparseChunkArm | None:
    if sparse is None:
        return None
    from brainkeep.core.hybrid import SparseChunkArm

    return SparseChunkArm(sparse)


def build_sparse_encoder(settings: Settings) -> Any:
    """The configured learned-sparse encoder (``sparse.provider``), or None."""
    if _provider(settings, "sparse") != "local":
        return None
    from brainkeep.providers.sparse_encoder import SparseEncoder

    return SparseEncoder()


def _provider(settings: Settings, section: str) -> str:
    return str(settings.get(f"{section}.provider") or "none")


def open_store(settings: Settings) -> Store:
    """The brain's store: PostgreSQL when a database URL is configured, else SQLite.

    Raises:
        Unavailable: The PostgreSQL server cannot be reached (the message
            names host and port, never the password), or a `brainkeep
            migrate` into this brain has not finished.
    """
    url = settings.database_url
    busy_ms = settings.get("store.busy_timeout_ms")
    pool_min = max(1, int(settings.get("database.pool_min") or 1))
    store = engines.open(
        url if url is not None else str(settings.db_path),
        pool_min=pool_min, pool_max=int(settings.get("database.pool_max") or 10),
        synchronous=str(settings.get("store.durability") or "full").upper(),
        busy_timeout_ms=None if busy_ms is None else int(busy_ms),
    )
    try:
        refuse_half_migrated(store)
    except BaseException:
        store.close()
        raise
    return store


def open_brain(
    settings: Settings,
    *,
    clock: Clock | None = None,
    embedder: Any = _FROM_SETTINGS,
    chat: Any = _FROM_SETTINGS,
    overlap_workers: int = OVERLAP_WORKERS,
    sparse_encoder: Any = _FROM_SETTINGS,
) -> Brain:
    """Open (and migrate) the brain under ``settings.home`` (or its PostgreSQL database).

    Args:
        settings: Config of the brain.
        clock: Time source (tests pass a controllable one).
        embedder: An embedding provider to use instead of building one from
            ``embeddings.*`` (tests share one loaded model); None for none.
        chat: A chat provider to use instead of building one from ``chat.*``.
        overlap_workers: Threads for reads run beside each other (0: every
            read on its caller's thread; results are the same either way).
        sparse_encoder: A learned-sparse encoder to use instead of the one
            ``sparse.provider`` names (tests share one loaded model); None for none.

    A misconfigured provider does not stop the brain from opening: embeddings
    fall back to keyword search (logged), and ``synthesize`` answers
    ``unavailable`` naming the bad setting. `brainkeep embed` reports
    embedding misconfiguration as an error.
    """
    store = open_store(settings)
    chat_error: BrainkeepError | None = None
    owned: list[Any] = []
    # "none" (the default) builds nothing, so it imports no provider module
    # (httpx, numpy): the factories would return None for it anyway.
    if embedder is _FROM_SETTINGS and _provider(settings, "embeddings") == "none":
        embedder = None
    if chat is _FROM_SETTINGS and _provider(settings, "chat") == "none":
        chat = None
    if embedder is _FROM_SETTINGS:
        try:
            embedder = build_embedder(settings)
            owned.append(embedder)
        except BrainkeepError as exc:
            log.warning("embeddings disabled: %s %s", exc.message, exc.suggestion)
            embedder = None
    if chat is _FROM_SETTINGS:
        from brainkeep.providers import make_chat_provider

        try:
            chat = make_chat_provider(chat_settings(settings), settings.env)
            owned.append(chat)
        except BrainkeepError as exc:
            chat, chat_error = None, exc
    return Brain(
        settings=settings,
        store=store,
        clock=clock or Clock(),
        chat=chat,
        chat_error=chat_error,
        embedder=embedder,
        owned=tuple(p for p in owned if p is not None),
        overlap_workers=overlap_workers,
        sparse_encoder=(build_sparse_encoder(settings) if sparse_encoder is _FROM_SETTINGS
                        else sparse_encoder),
    )

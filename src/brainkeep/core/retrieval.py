"""Domain values of retrieval: stored vectors, chunk views, fact filters.

Shared by the search services (``core/search.py``, ``core/hybrid.py``,
``core/embedding.py``) and the store engines, which fill them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from brainkeep.core.models import Memory
from brainkeep.core.scope import ReadScope

CHUNK = "chunk"
MEMORY = "memory"
PAGE = "page"  # the title/alias index (search only; pages have no vectors)


@dataclass(frozen=True)
class NewEmbedding:
    """A vector to store for one chunk or memory (``vector``: float32 bytes)."""

    kind: str  # chunk | memory
    item_id: int
    source_id: str
    page_id: int | None
    private: bool
    model: str
    dim: int
    text_hash: str
    vector: bytes



@dataclass(frozen=True)
class EmbedTask:
    """Text that has no vector in the current model yet (backfill work)."""

    kind: str
    item_id: int
    page_id: int | None
    private: bool
    text: str
    title: str = ""  # chunks: the page title (embedded as the chunk's heading)
    context: object = None  # chunks: the page's frontmatter `search_context`, as stored


@dataclass(frozen=True)
class ChunkView:
    """A chunk with what a search result shows of its page."""

    chunk_id: int
    page_id: int
    slug: str
    title: str
    text: str
    kind: str
    updated_at: str


@dataclass(frozen=True)
class ScoredId:
    """An id with its arm score (BM25 as a positive number, or a cosine).

    ``memory``: the row itself, when the engine read it anyway while ranking
    (saves the caller a second read; None means "read it by id").
    """

    id: int
    page_id: int
    score: float
    memory: Memory | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class FactFilter:
    """Filters of recall's facts arm; every field given must hold (they compose)."""

    now: str
    scope: ReadScope
    entity_slug: str | None = None
    since: str | None = None
    until: str | None = None
    session_id: str | None = None
    include_expired: bool = False
    text_contains: str | None = None

    @property
    def narrowed(self) -> bool:
        """Whether any caller filter is set (beyond privacy and activity)."""
        return any(
            v is not None
            for v in (self.entity_slug, self.since, self.until, self.session_id,
                      self.text_contains)
        )


@dataclass(frozen=True)
class PageHead:
    """What ranking needs of a candidate page (no body)."""

    id: int
    slug: str
    title: str
    updated_at: str


@dataclass(frozen=True)
class StoredEmbeddings:
    """A batch of stored vectors in column form (cheap to turn into numpy arrays).

    ``vectors`` is the rows' float32 bytes concatenated in ``ids`` order.
    """

    ids: tuple[int, ...]
    item_ids: tuple[int, ...]
    page_ids: tuple[int, ...]  # 0 for memories
    private: tuple[bool, ...]
    vectors: bytes

    def __len__(self) -> int:
        return len(self.ids)

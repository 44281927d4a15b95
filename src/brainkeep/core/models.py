"""Domain values shared by services and store engines (frozen dataclasses)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_SOURCE = "default"

VISIBILITIES = ("world", "private")
FACT_KINDS = ("event", "preference", "commitment", "belief", "fact")
MEMORY_TYPES = ("episodic", "semantic", "procedural", "working")
SCOPES = ("private", "shared", "public", "global")


@dataclass(frozen=True)
class LinkSpec:
    """An edge declared by a page's content (or added by `add_link`)."""

    to_slug: str
    link_type: str
    link_source: str  # frontmatter | mentions (wikilink) | markdown
    context: str = ""


@dataclass(frozen=True)
class TimelineSpec:
    """One `- YYYY-MM-DD: summary` line of a page's `## Timeline` section."""

    date: str
    summary: str
    detail: str = ""


@dataclass(frozen=True)
class Chunk:
    """A slice of page text for search: `truth` (compiled truth) or `timeline`."""

    ord: int
    kind: str
    text: str


@dataclass(frozen=True)
class ParsedPage:
    """What the markdown of a page means, before it is stored."""

    title: str
    type: str
    frontmatter: dict[str, Any]
    body: str
    summary: str | None
    visibility: str
    aliases: tuple[str, ...]
    links: tuple[LinkSpec, ...]
    timeline: tuple[TimelineSpec, ...]
    # Frontmatter `search_context`: read by the dense model with each chunk, never shown.
    search_context: str = ""


@dataclass(frozen=True)
class PageDraft:
    """A page ready to be written: parsed content plus its hash and chunks."""

    source_id: str
    slug: str
    content: str
    content_hash: str
    parsed: ParsedPage
    chunks: tuple[Chunk, ...]


@dataclass(frozen=True)
class Page:
    """A stored page."""

    id: int
    source_id: str
    slug: str
    title: str
    type: str
    frontmatter: dict[str, Any]
    body: str
    content: str
    content_hash: str
    visibility: str
    summary: str | None
    created_at: str
    updated_at: str
    last_retrieved_at: str | None = None
    deleted_at: str | None = None

    @property
    def is_private(self) -> bool:
        return self.visibility == "private"


@dataclass(frozen=True)
class Link:
    """A stored edge between two slugs (the target page may not exist yet)."""

    from_slug: str
    to_slug: str
    link_type: str
    link_source: str
    context: str = ""


@dataclass(frozen=True)
class TimelineEntry:
    """A stored timeline entry of a page."""

    slug: str
    date: str
    summary: str
    detail: str = ""


@dataclass(frozen=True)
class MemoryDraft:
    """A memory (MCP fact or gRPC memory) ready to be inserted."""

    text: str
    source_id: str = DEFAULT_SOURCE
    kind: str = "fact"
    entity_slug: str | None = None
    visibility: str = "world"
    provenance: str | None = None
    session_id: str | None = None
    confidence: float | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    origin: str = "mcp"  # mcp | grpc | cli
    agent_id: str = ""
    org_id: str | None = None
    thread_id: str | None = None
    memory_type: str = "semantic"
    scope: str = "global"
    importance: float = 0.5
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    source_type: str | None = None
    source_ref: str | None = None
    created_by: str | None = None
    decay_rate: float | None = None
    related_to: tuple[str, ...] = ()
    # Held for review: hidden from every remote reader (core/injection.py decides).
    quarantined: bool = False


@dataclass(frozen=True)
class Memory:
    """A stored memory: one row serves both protocols (see docs/data-model.md)."""

    id: int
    uuid: str
    source_id: str
    text: str
    normalized_text: str
    kind: str
    entity_slug: str | None
    visibility: str
    provenance: str | None
    session_id: str | None
    confidence: float | None
    valid_from: str | None
    valid_until: str | None
    expired_at: str | None
    expired_reason: str | None
    superseded_by: int | None
    created_at: str
    updated_at: str
    origin: str
    agent_id: str
    org_id: str | None
    thread_id: str | None
    memory_type: str
    scope: str
    importance: float
    tags: tuple[str, ...]
    metadata: dict[str, Any]
    source_type: str | None
    source_ref: str | None
    created_by: str | None
    decay_rate: float | None
    access_count: int
    last_accessed_at: str | None
    consolidation_state: str | None
    quarantined: bool
    content_hash: str
    prev_hash: str | None
    version: int
    deleted_at: str | None
    delete_strategy: str | None
    redacted_at: str | None
    # Share turned this memory from private into shared: it reads as shared
    # only while one of its ACLs is live (core/scope.py, ``shares_live``).
    shared_by_grant: bool = False

    @property
    def fact_id(self) -> str:
        return str(self.id)

    def is_active(self, now_ts: str) -> bool:
        """Not expired, not deleted, and not past its `valid_until`."""
        if self.expired_at or self.deleted_at:
            return False
        return not (self.valid_until and self.valid_until <= now_ts)


@dataclass(frozen=True)
class NewEvent:
    """An event to append to the hash-chained log."""

    kind: str  # e.g. page.put, page.delete, memory.insert, memory.expire
    subject_type: str  # page | memory | acl | checkpoint | ...
    subject_id: str
    payload: dict[str, Any]
    source_id: str = DEFAULT_SOURCE
    actor: str = "local"


@dataclass(frozen=True)
class Event:
    """A stored, chained event."""

    seq: int
    ts: str
    source_id: str
    kind: str
    subject_type: str
    subject_id: str
    actor: str
    payload: dict[str, Any]
    prev_hash: str
    hash: str


@dataclass(frozen=True)
class SessionCursor:
    """Where a delta session resumes: the event seq each stream was delivered through.

    Attributes:
        last_wake_at: When the session last drained everything (reported as
            ``since``; thread events are dated against it).
        page_seq: Pages put at or before this event seq were delivered.
        fact_seq: Facts recorded at or before this event seq were delivered.
    """

    source_id: str
    client_id: str
    session_id: str
    last_wake_at: str
    page_seq: int = 0
    fact_seq: int = 0
    standing_entities: tuple[str, ...] = ()
    updated_at: str = ""

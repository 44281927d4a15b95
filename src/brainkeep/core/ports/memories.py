"""The memories repository: the one table of MCP facts and gRPC memories.

Writes, reads by id, filtered lists, lifecycle changes and topic documents.
Part of the Store protocol (core/ports/store.py); no method commits on its own.
"""

from __future__ import annotations

from typing import Protocol

from brainkeep.core.memory.models import (
    MemoryFilter,
)
from brainkeep.core.models import (
    Memory,
    MemoryDraft,
)
from brainkeep.core.scope import ReadScope


class MemoryRepository(Protocol):
    """The one memories table: MCP facts and gRPC memories alike."""

    # -- memories --------------------------------------------------------------
    def insert_memory(
        self,
        draft: MemoryDraft,
        *,
        uuid: str,
        now: str,
        normalized_text: str,
        content_hash: str,
    ) -> Memory: ...
    def get_memory(self, memory_id: int) -> Memory | None: ...
    def get_memories(self, memory_ids: list[int]) -> dict[int, Memory]: ...
    def get_memory_by_uuid(self, uuid: str) -> Memory | None: ...
    def find_active_duplicate(
        self, source_id: str, entity_slug: str | None, normalized_text: str, now: str,
        scope: ReadScope,
    ) -> Memory | None: ...
    def list_memories(
        self,
        source_id: str,
        *,
        now: str,
        entity_slug: str | None = None,
        since: str | None = None,
        session_id: str | None = None,
        scope: ReadScope,
        include_expired: bool = False,
        kinds: tuple[str, ...] | None = None,
        text_contains: str | None = None,
        limit: int = 50,
    ) -> list[Memory]: ...
    def count_active_memories(
        self, source_id: str, entity_slug: str, now: str, *, scope: ReadScope
    ) -> int: ...
    def expire_memory(
        self, memory_id: int, now: str, reason: str | None, *, superseded_by: int | None = None
    ) -> Memory | None: ...
    def facts_created_after(
        self,
        source_id: str,
        after_ts: str,
        after_id: int,
        *,
        now: str,
        scope: ReadScope,
        limit: int,
    ) -> list[Memory]: ...

    # -- reads the gRPC strategies need ----------------------------------------
    def memories_containing(self, filt: MemoryFilter, needle: str, limit: int) -> list[Memory]: ...
    def visible_memories(self, filt: MemoryFilter, memory_ids: list[int]) -> list[Memory]: ...
    def memories_matching_terms(
        self, filt: MemoryFilter, terms: list[str], limit: int
    ) -> list[Memory]: ...
    def memory_relations(self, memory_ids: list[int]) -> list[tuple[int, int]]: ...
    def add_memory_access(self, counts: list[tuple[int, int]], now: str) -> None: ...
    def memories_by_uuid(self, uuids: list[str]) -> dict[str, Memory]: ...

    # -- forgetting ------------------------------------------------------------
    def mark_memory_deleted(self, memory_id: int, now: str, strategy: str) -> None: ...
    def hard_delete_memory(self, memory_id: int) -> None: ...
    def redact_memory(self, memory_id: int, now: str, placeholder: str) -> None: ...
    def set_memory_importance(self, memory_id: int, importance: float, now: str) -> None: ...
    def memories_with_tag(self, source_id: str, tag: str) -> list[Memory]: ...

    # -- topics ----------------------------------------------------------------
    def mark_topic_document(self, memory_id: int, version: int) -> None: ...
    def add_topic_members(self, topic_memory_id: int, member_uuids: list[str]) -> None: ...
    def topic_members(self, topic_memory_id: int) -> list[str]: ...

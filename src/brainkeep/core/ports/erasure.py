"""Erasure: what still holds a memory's text, and the purge mechanics of each engine.

Part of the Store protocol (core/ports/store.py); no method commits on its
own. ``core/erasure.py`` runs a purge with them (docs/audit.md, "Forgetting").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from brainkeep.core.models import Memory


@dataclass(frozen=True)
class MemoryCopies:
    """Where the text of some memories can still be read (``store.memory_copies``)."""

    text: int = 0  # rows whose text column still holds it (not redacted)
    keyword_index: int = 0  # full-text index entries (FTS5 rows; a non-NULL tsvector)
    grep_index: int = 0  # substring index entries (they follow the text column)
    vectors: tuple[int, ...] = ()  # embedding ids of stored vectors
    sparse: int = 0  # learned-sparse vectors (their terms are the text's words)

    def counts(self) -> dict[str, int]:
        return {"text": self.text, "keyword_index": self.keyword_index,
                "grep_index": self.grep_index, "vectors": len(self.vectors),
                "sparse": self.sparse}

    @property
    def empty(self) -> bool:
        return not any(self.counts().values())


class ErasureRepository(Protocol):
    """Counting and purging the derived copies of memories' text."""

    # Rows already gone count nothing; a redacted row counts only index
    # entries and vectors that should have gone with its text.
    def memory_copies(self, memory_ids: Sequence[int]) -> MemoryCopies: ...
    # Topic documents (Consolidate) that list any of these memories as members.
    def topics_containing(self, source_id: str, member_uuids: Sequence[str]) -> list[Memory]: ...
    # Inside the purging transaction: drop what indexes still keep of these
    # memories after their rows changed (SQLite: merges its FTS5 segments and
    # deletes their sparse postings; PostgreSQL: nothing).
    def purge_text_indexes(self, memory_ids: Sequence[int]) -> None: ...
    # After the commit, outside any transaction: remove old bytes of these
    # memories from files beside the database (SQLite: the write-ahead log,
    # ANN base files naming them). Returns what it did, for the receipt.
    def scrub_files(self, memory_ids: Sequence[int]) -> dict[str, Any]: ...

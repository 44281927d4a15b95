"""PostgreSQL's text search over memories (``store/sql/memories.py`` hooks).

The keyword index needs no upkeep: ``memories.tsv`` is a generated column
that goes NULL when a memory expires, is deleted or redacted (migration
0011), so both upkeep hooks do nothing. Substring recall reads the trigram
GIN index (``grep.py``, migration 0013).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brainkeep.store.postgres.driver import Row
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.grep import grep_memories
from brainkeep.store.sql.dialect import to_psycopg


class MemoryTextMixin:
    """``MemoryTextUpkeep`` for PostgreSQL; expects ``self.db`` to be a ``PostgresEngine``."""

    db: PostgresEngine

    def _fts_memory_added(self, memory_id: int, text: str) -> None:
        return None

    def _fts_memory_removed(self, memory_id: int) -> None:
        return None

    def _grep_memories(self, where: str, params: dict[str, Any], needles: Sequence[str],
                       limit: int, *, source_id: str, lower_needles: bool = True) -> list[Row]:
        # grep.py writes psycopg statements: the portable fragment joins them translated.
        return grep_memories(self.db, to_psycopg(where, True), params, needles, limit,
                             source_id=source_id, lower_needles=lower_needles)

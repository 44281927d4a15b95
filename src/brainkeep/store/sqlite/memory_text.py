"""SQLite's text search over memories (``store/sql/memories.py`` hooks).

``memories_fts`` is an FTS5 side table: it holds a row per live memory,
keyed by rowid, and nothing fills or empties it but these hooks (and a
migrated brain's rebuild, ``store/migrate_sides.py``). Substring recall reads
the trigram table that triggers keep (``grep.py``, migration 0013).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.grep import grep_memories


class MemoryTextMixin:
    """``MemoryTextUpkeep`` for SQLite; expects ``self.db`` to be a ``SQLiteEngine``."""

    db: SQLiteEngine

    def _fts_memory_added(self, memory_id: int, text: str) -> None:
        self.db.execute("INSERT INTO memories_fts (rowid, text) VALUES (?, ?)", (memory_id, text))

    def _fts_memory_removed(self, memory_id: int) -> None:
        self.db.execute("DELETE FROM memories_fts WHERE rowid = ?", (memory_id,))

    def _grep_memories(self, where: str, params: dict[str, Any], needles: Sequence[str],
                       limit: int, *, source_id: str,
                       lower_needles: bool = True) -> list[sqlite3.Row]:
        # SQLite takes the portable marks as they are.
        return grep_memories(self.db, where, params, needles, limit, source_id=source_id,
                             lower_needles=lower_needles)

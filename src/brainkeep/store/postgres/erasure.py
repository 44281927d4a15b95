"""PostgreSQL's purge mechanics (``store/sql/erasure.py`` hooks).

The keyword index is the generated ``memories.tsv`` column, NULL once a
memory is redacted (migration 0011), and the trigram index covers the text
column itself, so the row's new version carries no copy. The old version
stays in the heap as a dead tuple until (auto)vacuum reclaims it; no read
path and no ``pg_dump`` sees it (docs/audit.md, "Forgetting"). There are no
files beside the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brainkeep.store.postgres.engine import PostgresEngine


class ErasureEngineMixin:
    """The PostgreSQL half of ``ErasureRepository``; expects ``self.db``."""

    db: PostgresEngine

    def _keyword_copies(self, memory_ids: Sequence[int]) -> int:
        return int(self.db.scalar(
            "SELECT COUNT(*) FROM memories WHERE id = ANY(%s) AND tsv IS NOT NULL",
            ([int(i) for i in memory_ids],)) or 0)

    def purge_text_indexes(self, memory_ids: Sequence[int]) -> None:
        return None  # the sparse vectors' trigger leaves no postings table here

    def scrub_files(self, memory_ids: Sequence[int]) -> dict[str, Any]:
        return {"engine": "postgres", "dead_row_versions": "reclaimed by autovacuum"}

"""delta session cursors, for both engines: per-stream event seqs, keyed (source, client, session).

Plain SQL both engines run, written once (``store/sql/dialect.py``); the
per-client trim addresses rows by their primary key, which both have.
"""

from __future__ import annotations

import json

from brainkeep.core.models import SessionCursor
from brainkeep.store.sql.dialect import SQL

_COLUMNS = ("source_id, client_id, session_id, last_wake_at, page_seq, fact_seq, "
            "standing_entities, updated_at")


class CursorsMixin:
    """Session cursor persistence; over ``self.sql``."""

    sql: SQL


    def get_session_cursor(
        self, source_id: str, client_id: str, session_id: str
    ) -> SessionCursor | None:
        row = self.sql.one(
            f"SELECT {_COLUMNS} FROM session_cursors WHERE source_id = ? AND client_id = ? "
            "AND session_id = ?",
            (source_id, client_id, session_id),
        )
        if row is None:
            return None
        return SessionCursor(
            source_id=row["source_id"],
            client_id=row["client_id"],
            session_id=row["session_id"],
            last_wake_at=row["last_wake_at"],
            page_seq=int(row["page_seq"]),
            fact_seq=int(row["fact_seq"]),
            standing_entities=tuple(json.loads(row["standing_entities"])),
            updated_at=row["updated_at"],
        )

    def put_session_cursor(self, cursor: SessionCursor) -> None:
        """Upsert a cursor (last writer wins)."""
        self.sql.execute(
            f"INSERT INTO session_cursors ({_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (source_id, client_id, session_id) DO UPDATE SET "
            "last_wake_at = excluded.last_wake_at, page_seq = excluded.page_seq, "
            "fact_seq = excluded.fact_seq, "
            "standing_entities = excluded.standing_entities, updated_at = excluded.updated_at",
            (
                cursor.source_id,
                cursor.client_id,
                cursor.session_id,
                cursor.last_wake_at,
                cursor.page_seq,
                cursor.fact_seq,
                json.dumps(list(cursor.standing_entities)),
                cursor.updated_at,
            ),
        )

    def gc_session_cursors(self, idle_before: str, *, keep_per_client: int = 1000) -> int:
        """Delete cursors idle since before ``idle_before`` and trim each client to a cap."""
        removed = self.sql.execute(
            "DELETE FROM session_cursors WHERE updated_at < ?", (idle_before,)
        ).rowcount
        removed += self.sql.execute(
            "DELETE FROM session_cursors WHERE (source_id, client_id, session_id) IN ("
            "SELECT source_id, client_id, session_id FROM ("
            "SELECT source_id, client_id, session_id, ROW_NUMBER() OVER ("
            "PARTITION BY source_id, client_id ORDER BY updated_at DESC) AS n "
            "FROM session_cursors) ranked WHERE n > ?)",
            (keep_per_client,),
        ).rowcount
        return int(removed)

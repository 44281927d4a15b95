"""What changed after an event seq: the streams behind delta's session cursors (PostgreSQL).

A translation of ``store/sqlite/changes.py`` (read it for why seq order is
commit order: here ``append_event`` assigns ``seq`` under the brain's write
lock, so a reader that reads the head and then scans ``(after, head]`` sees a
gap-free range too).
"""

from __future__ import annotations

from brainkeep.core.models import Memory, Page
from brainkeep.core.scope import ReadScope
from brainkeep.store.postgres import visibility
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.rows import memory_from_row, page_columns, page_from_row
from brainkeep.store.sqlite.changes import FACT_CHANGE, PAGE_CHANGE

# SQLite's CAST(subject_id AS INTEGER) turns a non-numeric id into 0 (no
# page); PostgreSQL's cast would fail the statement, so only digits are cast
# (at most 18: always within BIGINT).
_PAGE_ID = ("CASE WHEN c.subject_id ~ '^[0-9]{1,18}$' "
            "THEN CAST(c.subject_id AS BIGINT) END")


class ChangesMixin:
    """Seq-keyed change streams; expects ``self.db`` to be a ``PostgresEngine``."""

    db: PostgresEngine

    def event_head(self) -> int:
        """The newest committed event seq (0 for an empty log)."""
        return int(self.db.scalar("SELECT COALESCE(MAX(seq), 0) FROM events"))

    def seq_before_ts(self, ts: str) -> int:
        """A seq a time cursor at ``ts`` may resume after without losing anything.

        Every event stamped at or after ``ts`` has a larger seq; events stamped
        earlier but committed later may be delivered again (at least once).
        """
        value = self.db.scalar(
            "SELECT COALESCE((SELECT MIN(seq) - 1 FROM events WHERE ts >= %s), "
            "(SELECT COALESCE(MAX(seq), 0) FROM events))",
            (ts,),
        )
        return int(value)

    def pages_changed_after_seq(
        self,
        source_id: str,
        after_seq: int,
        *,
        upto_seq: int,
        include_private: bool,
        limit: int,
    ) -> list[tuple[int, Page]]:
        """Live pages put in ``(after_seq, upto_seq]``, as (seq of their newest put, page).

        Ordered by that seq, so a page changed twice in the range appears once,
        at its newest change, and a prefix of the list is a seq prefix.
        """
        privacy = "" if include_private else "AND p.visibility = 'world'"
        rows = self.db.all(
            f"SELECT c.seq AS change_seq, {page_columns('p')} FROM ("
            "SELECT subject_id, MAX(seq) AS seq FROM events "
            "WHERE kind = %s AND seq > %s AND seq <= %s AND source_id = %s GROUP BY subject_id"
            f") c JOIN pages p ON p.id = {_PAGE_ID} "
            f"WHERE p.source_id = %s AND p.deleted_at IS NULL {privacy} "
            "ORDER BY c.seq LIMIT %s",
            (PAGE_CHANGE, after_seq, upto_seq, source_id, source_id, limit),
        )
        return [(int(r["change_seq"]), page_from_row(r)) for r in rows]

    def facts_created_after_seq(
        self,
        source_id: str,
        after_seq: int,
        *,
        upto_seq: int,
        now: str,
        scope: ReadScope,
        limit: int,
    ) -> list[tuple[int, Memory]]:
        """Active memories ``scope`` can read, recorded in ``(after_seq, upto_seq]``, by seq."""
        params: list[object] = [FACT_CHANGE, after_seq, upto_seq, source_id, source_id]
        bind = visibility.positional(params)
        live = visibility.live(now, bind, "m")
        readable = visibility.readable(scope, now, bind, "m")
        params.append(limit)
        rows = self.db.all(
            "SELECT e.seq AS change_seq, m.* FROM events e "
            "JOIN memories m ON m.uuid = e.subject_id "
            "WHERE e.kind = %s AND e.seq > %s AND e.seq <= %s AND e.source_id = %s "
            f"AND m.source_id = %s AND {live} AND {readable} "
            "ORDER BY e.seq LIMIT %s",
            params,
        )
        return [(int(r["change_seq"]), memory_from_row(r)) for r in rows]

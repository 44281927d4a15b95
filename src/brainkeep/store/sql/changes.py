"""What changed after an event seq: the streams behind delta's session cursors.

``append_event`` assigns ``seq`` under the brain's write lock (both engines:
sql/events.py), so so seq order is commit order whatever the writers' clocks say.
A reader that first reads the head and then scans ``(after, head]`` sees a
complete, gap-free range: every seq up to a committed one is committed too.

A page's ``updated_at`` and a memory's ``created_at`` are the ``ts`` of the
event written with them (one ``now`` per write), which is what lets a time
cursor be translated into a seq (``seq_before_ts``).
"""

from __future__ import annotations

from brainkeep.core.models import Memory, Page
from brainkeep.core.scope import ReadScope
from brainkeep.store.sql.dialect import SQL, positional
from brainkeep.store.sql.rows import memory_from_row, page_columns, page_from_row
from brainkeep.store.sql.scope import live, readable

# Every write that makes a page live emits `page.put` (create, edit, restore,
# link and timeline edits go through put_page); a delete makes it not live.
PAGE_CHANGE = "page.put"
# Facts are delivered once, when recorded (the old `created_at` semantics).
FACT_CHANGE = "memory.insert"


class ChangesMixin:
    """Seq-keyed change streams over ``self.sql``."""

    sql: SQL

    def _page_id(self, column: str) -> str:
        """An event's text ``subject_id`` as a page id.

        SQLite's CAST turns a non-numeric id into 0 (no page); PostgreSQL's
        cast would fail the statement, so only digits are cast there (at most
        18: always within BIGINT).
        """
        return self.sql.dialect.pick(
            sqlite=f"CAST({column} AS INTEGER)",
            postgres=f"CASE WHEN {column} ~ '^[0-9]{{1,18}}$' THEN CAST({column} AS BIGINT) END")

    def event_head(self) -> int:
        """The newest committed event seq (0 for an empty log)."""
        return int(self.sql.scalar("SELECT COALESCE(MAX(seq), 0) FROM events"))

    def seq_before_ts(self, ts: str) -> int:
        """A seq a time cursor at ``ts`` may resume after without losing anything.

        Every event stamped at or after ``ts`` has a larger seq; events stamped
        earlier but committed later may be delivered again (at least once).
        """
        value = self.sql.scalar(
            "SELECT COALESCE((SELECT MIN(seq) - 1 FROM events WHERE ts >= ?), "
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
        rows = self.sql.all(
            f"SELECT c.seq AS change_seq, {page_columns('p')} FROM ("
            "SELECT subject_id, MAX(seq) AS seq FROM events "
            "WHERE kind = ? AND seq > ? AND seq <= ? AND source_id = ? GROUP BY subject_id"
            f") c JOIN pages p ON p.id = {self._page_id('c.subject_id')} "
            f"WHERE p.source_id = ? AND p.deleted_at IS NULL {privacy} "
            "ORDER BY c.seq LIMIT ?",
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
        bind = positional(params)
        alive = live(now, bind, "m")
        seen = readable(scope, now, bind, "m")
        params.append(limit)
        rows = self.sql.all(
            "SELECT e.seq AS change_seq, m.* FROM events e "
            "JOIN memories m ON m.uuid = e.subject_id "
            "WHERE e.kind = ? AND e.seq > ? AND e.seq <= ? AND e.source_id = ? "
            f"AND m.source_id = ? AND {alive} AND {seen} "
            "ORDER BY e.seq LIMIT ?",
            params,
        )
        return [(int(r["change_seq"]), memory_from_row(r)) for r in rows]

"""The append-only, hash-chained event log, for both engines.

Chain safety: ``append_event`` runs under the brain's write lock (the
engine's ``writing()``: the caller's transaction, or one of its own), so
reading the tail and appending cannot interleave with another writer, in
this process or (PostgreSQL's advisory lock) on any host. ``seq`` is the
tail's plus one, assigned under that lock, never a sequence: a sequence
leaves a gap for every rolled-back append, and the verifier requires a
gap-free log. The primary key on ``seq`` and the unique ``hash`` stop a fork
even if the lock were ever bypassed (the second writer fails instead).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from brainkeep.core.audit import next_event
from brainkeep.core.models import Event, NewEvent
from brainkeep.store.sql.dialect import SQL
from brainkeep.store.sql.rows import EVENT_COLUMNS, event_from_row, event_row

# The newest event, by its key. Not `ORDER BY seq DESC LIMIT 1`: once SQLite
# has planner statistics it may read that through a covering index and sort
# the whole log (475 ms per append on the 600K-event bench brain, against
# 0.05 ms for MAX on the integer key; both engines answer MAX from the key).
_TAIL = "SELECT seq, hash FROM events WHERE seq = (SELECT MAX(seq) FROM events)"


class EventsMixin:
    """Event log persistence over ``self.sql``."""

    sql: SQL
    db: Any  # the engine: ``writing()``

    def append_event(self, event: NewEvent, now: str) -> Event:
        """Chain and append one event (inside the caller's transaction, or its own)."""
        with self.db.writing():
            tail = self.sql.one(_TAIL)
            chained = next_event(
                event, None if tail is None else (tail["seq"], tail["hash"]), now
            )
            self.sql.execute(
                f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                event_row(chained),
            )
        return chained

    def iter_events(self, *, after_seq: int = 0, batch: int = 2000) -> Iterator[Event]:
        """Every event in chain order, read in keyset batches."""
        cursor = after_seq
        while True:
            rows = self.sql.all(
                "SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?", (cursor, batch)
            )
            if not rows:
                return
            for row in rows:
                yield event_from_row(row)
            cursor = int(rows[-1]["seq"])

    def events_for(self, subject_type: str, subject_id: str) -> list[Event]:
        rows = self.sql.all(
            "SELECT * FROM events WHERE subject_type = ? AND subject_id = ? ORDER BY seq",
            (subject_type, subject_id),
        )
        return [event_from_row(r) for r in rows]

    def recorded_hashes(self, subject_type: str) -> dict[str, str]:
        """subject_id -> content_hash recorded by that subject's newest hashing event."""
        hashed = self.sql.dialect.json_text("payload", "content_hash")
        rows = self.sql.all(
            f"SELECT e.subject_id, {self.sql.dialect.json_text('e.payload', 'content_hash')} "
            "AS h FROM events e "
            "JOIN (SELECT subject_id, MAX(seq) AS seq FROM events WHERE subject_type = ? "
            f"AND {hashed} IS NOT NULL GROUP BY subject_id) last ON last.seq = e.seq",
            (subject_type,),
        )
        return {r["subject_id"]: r["h"] for r in rows}

    def iter_page_contents(self) -> Iterator[tuple[str, str, str, str]]:
        """(page id, slug, content, content_hash) of every page, deleted ones too."""
        for row in self.sql.stream("SELECT id, slug, content, content_hash FROM pages"):
            yield str(row[0]), row[1], row[2], row[3]

    def event_at(self, seq: int) -> Event | None:
        """The event numbered ``seq`` (None: no such event)."""
        row = self.sql.one("SELECT * FROM events WHERE seq = ?", (seq,))
        return None if row is None else event_from_row(row)

    def chain_tip(self) -> tuple[int, str] | None:
        """(seq, hash) of the newest event (None: an empty log)."""
        row = self.sql.one(_TAIL)
        return None if row is None else (int(row["seq"]), str(row["hash"]))

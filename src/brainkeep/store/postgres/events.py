"""The append-only, hash-chained event log (PostgreSQL).

Chain safety across processes: ``append_event`` runs under the brain's write
lock (``pg_advisory_xact_lock(WRITE_LOCK_KEY)``, taken by every
``transaction()``; engine.py), so reading the tail and appending cannot
interleave with another writer on any host. ``seq`` is the tail's plus one,
assigned under that lock, never a sequence: a sequence leaves a gap for
every rolled-back append, and the verifier requires a gap-free log. The
primary key on ``seq`` and the unique ``hash`` stop a fork even if the lock
were ever bypassed (the second writer fails instead of forking).
"""

from __future__ import annotations

from collections.abc import Iterator

from brainkeep.core.audit import next_event
from brainkeep.core.models import Event, NewEvent
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.rows import EVENT_COLUMNS, event_from_row, event_row


class EventsMixin:
    """Event log persistence; expects ``self.db`` to be a ``PostgresEngine``."""

    db: PostgresEngine

    def append_event(self, event: NewEvent, now: str) -> Event:
        """Chain and append one event (inside the caller's transaction, or its own)."""
        with self.db.writing():
            tail = self.db.one("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1")
            chained = next_event(
                event, None if tail is None else (tail["seq"], tail["hash"]), now
            )
            self.db.execute(
                f"INSERT INTO events ({EVENT_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                event_row(chained),
            )
        return chained

    def iter_events(self, *, after_seq: int = 0, batch: int = 2000) -> Iterator[Event]:
        """Every event in chain order, read in keyset batches."""
        cursor = after_seq
        while True:
            rows = self.db.all(
                "SELECT * FROM events WHERE seq > %s ORDER BY seq LIMIT %s", (cursor, batch)
            )
            if not rows:
                return
            for row in rows:
                yield event_from_row(row)
            cursor = int(rows[-1]["seq"])

    def events_for(self, subject_type: str, subject_id: str) -> list[Event]:
        rows = self.db.all(
            "SELECT * FROM events WHERE subject_type = %s AND subject_id = %s ORDER BY seq",
            (subject_type, subject_id),
        )
        return [event_from_row(r) for r in rows]

    def recorded_hashes(self, subject_type: str) -> dict[str, str]:
        """subject_id -> content_hash recorded by that subject's newest hashing event."""
        rows = self.db.all(
            "SELECT DISTINCT ON (subject_id) subject_id, payload::jsonb ->> 'content_hash' AS h "
            "FROM events WHERE subject_type = %s "
            "AND payload::jsonb ->> 'content_hash' IS NOT NULL "
            "ORDER BY subject_id, seq DESC",
            (subject_type,),
        )
        return {r["subject_id"]: r["h"] for r in rows}

    def iter_page_contents(self) -> Iterator[tuple[str, str, str, str]]:
        """(page id, slug, content, content_hash) of every page, deleted ones too."""
        for row in self.db.stream("SELECT id, slug, content, content_hash FROM pages"):
            yield str(row[0]), row[1], row[2], row[3]

    def event_at(self, seq: int) -> Event | None:
        """The event numbered ``seq`` (None: no such event)."""
        row = self.db.one("SELECT * FROM events WHERE seq = %s", (seq,))
        return None if row is None else event_from_row(row)

    def chain_tip(self) -> tuple[int, str] | None:
        """(seq, hash) of the newest event (None: an empty log)."""
        row = self.db.one("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1")
        return None if row is None else (int(row["seq"]), str(row["hash"]))

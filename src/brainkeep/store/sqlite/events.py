"""The append-only, hash-chained event log and integrity scans (SQLite)."""

from __future__ import annotations

from collections.abc import Iterator

from brainkeep.core.audit import next_event
from brainkeep.core.models import Event, NewEvent
from brainkeep.store.rows import EVENT_COLUMNS, event_from_row, event_row
from brainkeep.store.sqlite.engine import SQLiteEngine


class EventsMixin:
    """Event log persistence; expects ``self.db`` to be a ``SQLiteEngine``."""

    db: SQLiteEngine

    def append_event(self, event: NewEvent, now: str) -> Event:
        """Chain and append one event. Must run inside ``transaction()``.

        The IMMEDIATE transaction holds the write lock, so reading the tail
        and appending cannot interleave with another writer.
        """
        tail = self.db.one("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1")
        chained = next_event(event, None if tail is None else (tail["seq"], tail["hash"]), now)
        self.db.execute(
            f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            event_row(chained),
        )
        return chained

    def iter_events(self, *, after_seq: int = 0, batch: int = 2000) -> Iterator[Event]:
        """Every event in chain order, read in batches."""
        cursor = after_seq
        while True:
            rows = self.db.all(
                "SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?", (cursor, batch)
            )
            if not rows:
                return
            for row in rows:
                yield event_from_row(row)
            cursor = int(rows[-1]["seq"])

    def events_for(self, subject_type: str, subject_id: str) -> list[Event]:
        rows = self.db.all(
            "SELECT * FROM events WHERE subject_type = ? AND subject_id = ? ORDER BY seq",
            (subject_type, subject_id),
        )
        return [event_from_row(r) for r in rows]

    def recorded_hashes(self, subject_type: str) -> dict[str, str]:
        """subject_id -> content_hash recorded by that subject's newest hashing event."""
        rows = self.db.all(
            "SELECT e.subject_id, json_extract(e.payload, '$.content_hash') AS h FROM events e "
            "JOIN (SELECT subject_id, MAX(seq) AS seq FROM events WHERE subject_type = ? "
            "AND json_extract(payload, '$.content_hash') IS NOT NULL GROUP BY subject_id) last "
            "ON last.seq = e.seq",
            (subject_type,),
        )
        return {r["subject_id"]: r["h"] for r in rows}

    def iter_page_contents(self) -> Iterator[tuple[str, str, str, str]]:
        """(page id, slug, content, content_hash) of every page, deleted ones too."""
        for row in self.db.execute("SELECT id, slug, content, content_hash FROM pages"):
            yield str(row[0]), row[1], row[2], row[3]

"""The append-only, hash-chained event log and integrity scans (SQLite)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from brainkeep.core.audit import GENESIS, event_body, event_hash
from brainkeep.core.models import Event, NewEvent
from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.rows import event_from_row


class EventsMixin:
    """Event log persistence; expects ``self.db`` to be a ``SQLiteEngine``."""

    db: SQLiteEngine

    def append_event(self, event: NewEvent, now: str) -> Event:
        """Chain and append one event. Must run inside ``transaction()``.

        The IMMEDIATE transaction holds the write lock, so reading the tail
        and appending cannot interleave with another writer.
        """
        tail = self.db.one("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1")
        seq = 1 if tail is None else int(tail["seq"]) + 1
        prev = GENESIS if tail is None else str(tail["hash"])
        body = event_body(
            seq=seq,
            ts=now,
            source_id=event.source_id,
            kind=event.kind,
            subject_type=event.subject_type,
            subject_id=event.subject_id,
            actor=event.actor,
            payload=event.payload,
        )
        digest = event_hash(prev, body)
        self.db.execute(
            "INSERT INTO events (seq, ts, source_id, kind, subject_type, subject_id, actor, "
            "payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                seq,
                now,
                event.source_id,
                event.kind,
                event.subject_type,
                event.subject_id,
                event.actor,
                json.dumps(event.payload, ensure_ascii=False, sort_keys=True),
                prev,
                digest,
            ),
        )
        return Event(seq, now, event.source_id, event.kind, event.subject_type,
                      event.subject_id, event.actor, event.payload, prev, digest)

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

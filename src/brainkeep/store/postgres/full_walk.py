"""The lean scans of the full verify walk (PostgreSQL).

The same rows as ``store/sqlite/full_walk.py``, but PostgreSQL renders JSON
its own way (``jsonb`` reorders keys, ``json_build_object`` adds spaces), so
the hash inputs are rendered here with the canonical encoding itself
(core/audit.py): the candidates are exactly what the rule computes. Each
row's newest event comes from one ``LATERAL`` lookup on ``events_subject``;
older events are read only when the newest does not record a key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from brainkeep.core.audit import (
    MEMORY_STATE_FIELDS,
    event_body,
    event_input,
    memory_input,
    memory_state_of,
    page_state,
    state_input,
)
from brainkeep.core.integrity_rows import EventDigest, MemoryCheck, PageCheck
from brainkeep.store.postgres.engine import PostgresEngine, Row


def _newest_event(subject_type: str, subject: str) -> str:
    """``LEFT JOIN LATERAL`` of the subject's newest event (alias ``e``: ``seq``, ``p``)."""
    return (f" LEFT JOIN LATERAL (SELECT x.seq, x.payload::jsonb AS p FROM events x "
            f"WHERE x.subject_type = '{subject_type}' AND x.subject_id = {subject} "
            "ORDER BY x.seq DESC LIMIT 1) e ON TRUE")


def _recorded(subject_type: str, key: str, subject: str) -> str:
    """The newest ``payload.<key>`` recorded: the newest event's, else an older one's."""
    return (
        f"CASE WHEN jsonb_typeof(e.p -> '{key}') IS NOT NULL THEN e.p ->> '{key}' ELSE "
        f"(SELECT o.payload::jsonb ->> '{key}' FROM events o "
        f"WHERE o.subject_type = '{subject_type}' AND o.subject_id = {subject} "
        f"AND jsonb_typeof(o.payload::jsonb -> '{key}') IS NOT NULL "
        "ORDER BY o.seq DESC LIMIT 1) END"
    )


def _event_input(r: Row) -> bytes | None:
    try:
        payload = json.loads(r["payload"])
        body = event_body(seq=r["seq"], ts=r["ts"], source_id=r["source_id"], kind=r["kind"],
                          subject_type=r["subject_type"], subject_id=r["subject_id"],
                          actor=r["actor"], payload=payload)
        return event_input(r["prev_hash"], body)
    except (TypeError, ValueError):  # the exact rule (core/verify.py) reports it
        return None


def _memory_check(r: Row) -> MemoryCheck:
    try:
        state: bytes | None = state_input(memory_state_of(
            {**{name: r[name] for name in MEMORY_STATE_FIELDS}, "tags": json.loads(r["tags"])}
        ))
    except (TypeError, ValueError):
        state = None
    redacted = r["redacted_at"]
    return MemoryCheck(
        r["uuid"], r["agent_id"], r["thread_id"], r["content_hash"], r["prev_hash"], redacted,
        None if redacted is None else r["text"],
        memory_input(r["text"], r["agent_id"], r["created_at"]), state,
        r["bk_content"], r["bk_state"], r["bk_last_seq"], r["tags"], r["bk_tags"])


class FullWalkMixin:
    """The full walk's scans; expects ``self.db`` to be a ``PostgresEngine``."""

    db: PostgresEngine

    def reopen_target(self) -> str | None:
        """The database URL this store was opened with (password included)."""
        return self.db.url

    def iter_event_digests(self, *, after_seq: int = 0) -> Iterator[EventDigest]:
        """Every event after ``after_seq`` in chain order, its hash input rendered."""
        for r in self.db.stream("SELECT * FROM events WHERE seq > %s ORDER BY seq",
                                (after_seq,), batch=5000):
            yield EventDigest(r["seq"], r["kind"], r["prev_hash"], r["hash"], _event_input(r))

    def iter_memory_checks(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None
    ) -> Iterator[MemoryCheck]:
        """Every stored memory in scope in chain order (agent, thread, id), hash inputs rendered."""
        columns = ", ".join(f"m.{name}" for name in MEMORY_STATE_FIELDS)
        rows = self.db.stream(
            f"SELECT m.uuid, m.content_hash, m.prev_hash, m.text, m.created_at, {columns}, "
            f"{_recorded('memory', 'content_hash', 'm.uuid')} AS bk_content, "
            f"{_recorded('memory', 'state_hash', 'm.uuid')} AS bk_state, e.seq AS bk_last_seq, "
            "(SELECT json_agg(t.tag)::text FROM memory_tags t WHERE t.memory_id = m.id) "
            "AS bk_tags FROM memories m" + _newest_event("memory", "m.uuid")
            + " WHERE (%(agent)s::text IS NULL OR m.agent_id = %(agent)s) "
            "AND (%(thread)s::text IS NULL OR m.thread_id = %(thread)s) "
            "AND (%(before)s::text IS NULL OR m.created_at <= %(before)s) "
            "ORDER BY m.agent_id, m.thread_id NULLS FIRST, m.id",
            {"agent": agent_id, "thread": thread_id, "before": created_before}, batch=5000,
        )
        return map(_memory_check, rows)

    def iter_page_checks(self) -> Iterator[PageCheck]:
        """Every page row (deleted ones too) in id order, its state hash input rendered."""
        subject = 'CAST(p.id AS TEXT) COLLATE "C"'
        for r in self.db.stream(
            "SELECT p.id, p.source_id, p.slug, p.content, p.content_hash, p.visibility, "
            f"p.deleted_at, {_recorded('page', 'content_hash', subject)} AS bk_content, "
            f"{_recorded('page', 'state_hash', subject)} AS bk_state, e.seq AS bk_last_seq "
            "FROM pages p" + _newest_event("page", subject) + " ORDER BY p.id", batch=5000,
        ):
            state = state_input(page_state(source_id=r["source_id"], slug=r["slug"],
                                           visibility=r["visibility"],
                                           deleted_at=r["deleted_at"]))
            yield PageCheck(str(r["id"]), r["slug"], r["content"].encode(), r["content_hash"],
                            state,
                            r["bk_content"], r["bk_state"], r["bk_last_seq"])

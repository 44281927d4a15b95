"""The lean scans of the full verify walk (SQLite): hash inputs rendered in SQL.

One streamed statement per table, no domain objects: SQLite's JSON
functions (C) render the exact text each hash covers (core/integrity_rows.py
says why a rendering is only a candidate, and docs/audit.md, "How the full
walk stays fast", why these are faithful), and each row's newest event is
found with one ``events_subject`` lookup: the newest event normally records
every hash key, so the older events are read only when it does not.

Faithful means: every value is rendered as the JSON the canonical encoding
would give *it* or as something no canonical text contains. Text columns
and integers render as themselves; the two flags only when they are
integers (Python's ``bool()`` of any other value is not SQLite's); tags only
when they are a JSON array of strings (sorted and de-duplicated by bytes:
UTF-8 byte order is code point order, Python's string order); a payload only
when it is valid JSON, minified by ``json()``, which keeps every token as
written (so a match means the stored payload parses to the hashed one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from brainkeep.core.audit import MEMORY_STATE_FIELDS
from brainkeep.core.integrity_rows import EventDigest, MemoryCheck, PageCheck
from brainkeep.store.sqlite.engine import SQLiteEngine

_FLAGS = ("quarantined", "shared_by_grant")
_TAGS = (
    "CASE WHEN m.tags = '[]' THEN json('[]') WHEN NOT json_valid(m.tags) THEN NULL "
    "WHEN json_type(m.tags) <> 'array' THEN NULL "
    "WHEN EXISTS (SELECT 1 FROM json_each(m.tags) WHERE type <> 'text') THEN NULL "
    "ELSE (SELECT json_group_array(value) FROM "
    "(SELECT DISTINCT value FROM json_each(m.tags) ORDER BY value)) END"
)


def _state_value(name: str) -> str:
    if name in _FLAGS:
        return (f"CASE WHEN typeof(m.{name}) <> 'integer' THEN NULL "
                f"WHEN m.{name} THEN json('true') ELSE json('false') END")
    return _TAGS if name == "tags" else f"m.{name}"


# Keys in canonical (sorted) order: json_object keeps the order it is given.
# Every hash input comes back CAST AS BLOB: the UTF-8 bytes sha256 reads, with
# no decoding into a str and encoding back per row.
_MEMORY_STATE = ("CAST('state' || char(10) || json_object(" + ", ".join(
    f"'{name}', {_state_value(name)}" for name in sorted(MEMORY_STATE_FIELDS)) + ") AS BLOB)")
_MEMORY_CONTENT = ("CAST(json_object('agent_id', m.agent_id, 'content', m.text, "
                   "'created_at', m.created_at) AS BLOB)")
_PAGE_STATE = ("CAST('state' || char(10) || json_object('deleted_at', p.deleted_at, "
               "'slug', p.slug, 'source_id', p.source_id, 'visibility', p.visibility) AS BLOB)")
_EVENT_INPUT = (
    "CASE WHEN json_valid(payload) THEN CAST(prev_hash || char(10) || json_object("
    "'actor', actor, 'kind', kind, 'payload', json(payload), 'seq', seq, "
    "'source_id', source_id, 'subject_id', subject_id, 'subject_type', subject_type, "
    "'ts', ts) AS BLOB) END"
)


def _newest_event(subject_type: str, subject: str) -> str:
    """``LEFT JOIN`` of the subject's newest event (alias ``e``)."""
    return (f" LEFT JOIN events e ON e.seq = (SELECT MAX(x.seq) FROM events x "
            f"WHERE x.subject_type = '{subject_type}' AND x.subject_id = {subject})")


def _recorded(subject_type: str, key: str, subject: str) -> str:
    """The newest ``payload.<key>`` recorded: the newest event's, else an older one's."""
    return (
        f"CASE WHEN json_type(e.payload, '$.{key}') IS NOT NULL "
        f"THEN json_extract(e.payload, '$.{key}') ELSE "
        f"(SELECT json_extract(o.payload, '$.{key}') FROM events o "
        f"WHERE o.subject_type = '{subject_type}' AND o.subject_id = {subject} "
        f"AND json_type(o.payload, '$.{key}') IS NOT NULL ORDER BY o.seq DESC LIMIT 1) END"
    )


def _as(kind: type[Any]) -> Callable[[tuple[Any, ...]], Any]:
    # tuple.__new__ straight from C: ``_make`` is a Python call per row.
    return partial(tuple.__new__, kind)


class FullWalkMixin:
    """The full walk's scans; expects ``self.db`` to be a ``SQLiteEngine``."""

    db: SQLiteEngine

    def _tuples(self, sql: str, params: dict[str, Any] | tuple[Any, ...]) -> Iterator[Any]:
        cursor = self.db.execute(sql, params)
        cursor.row_factory = None  # plain tuples: no Row per row
        return cursor

    def reopen_target(self) -> str | None:
        """The file; None for ``:memory:``, where each connection is its own database."""
        return None if self.db.path == ":memory:" else self.db.path

    def iter_event_digests(self, *, after_seq: int = 0) -> Iterator[EventDigest]:
        """Every event after ``after_seq`` in chain order, its hash input rendered."""
        rows = self._tuples(
            f"SELECT seq, kind, prev_hash, hash, {_EVENT_INPUT} FROM events WHERE seq > ? "
            "ORDER BY seq", (after_seq,))
        return map(_as(EventDigest), rows)

    def iter_memory_checks(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None
    ) -> Iterator[MemoryCheck]:
        """Every stored memory in scope in chain order (agent, thread, id), hash inputs rendered."""
        rows = self._tuples(
            "SELECT m.uuid, m.agent_id, m.thread_id, m.content_hash, m.prev_hash, "
            "m.redacted_at, CASE WHEN m.redacted_at IS NOT NULL THEN m.text END, "
            f"{_MEMORY_CONTENT}, {_MEMORY_STATE}, {_recorded('memory', 'content_hash', 'm.uuid')}, "
            f"{_recorded('memory', 'state_hash', 'm.uuid')}, e.seq, m.tags, "
            "(SELECT json_group_array(t.tag) FROM memory_tags t WHERE t.memory_id = m.id) "
            "FROM memories m" + _newest_event("memory", "m.uuid")
            + " WHERE (:agent IS NULL OR m.agent_id = :agent) "
            "AND (:thread IS NULL OR m.thread_id = :thread) "
            "AND (:before IS NULL OR m.created_at <= :before) "
            "ORDER BY m.agent_id, m.thread_id, m.id",
            {"agent": agent_id, "thread": thread_id, "before": created_before},
        )
        return map(_as(MemoryCheck), rows)

    def iter_page_checks(self) -> Iterator[PageCheck]:
        """Every page row (deleted ones too) in id order, its state hash input rendered."""
        subject = "CAST(p.id AS TEXT)"
        rows = self._tuples(
            f"SELECT CAST(p.id AS TEXT), p.slug, CAST(p.content AS BLOB), p.content_hash, "
            f"{_PAGE_STATE}, "
            f"{_recorded('page', 'content_hash', subject)}, "
            f"{_recorded('page', 'state_hash', subject)}, e.seq FROM pages p"
            + _newest_event("page", subject) + " ORDER BY p.id", ())
        return map(_as(PageCheck), rows)

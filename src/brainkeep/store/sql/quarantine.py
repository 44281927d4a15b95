"""The review queue (``quarantine``, migration 0015) for both engines."""

from __future__ import annotations

import json
from typing import Any

from brainkeep.core.quarantine.models import HeldDraft, HeldEntry
from brainkeep.store.sql.dialect import SQL

_COLUMNS = (
    "id, subject_type, subject_id, source_id, org_id, label, score, rules, held_visibility, "
    "status, held_at, held_by, decided_at, decided_by"
)


def _entry(row: Any) -> HeldEntry:
    return HeldEntry(
        id=int(row["id"]), subject_type=row["subject_type"], subject_id=row["subject_id"],
        source_id=row["source_id"], org_id=row["org_id"], label=row["label"],
        score=float(row["score"]), rules=tuple(json.loads(row["rules"])),
        held_visibility=row["held_visibility"], status=row["status"], held_at=row["held_at"],
        held_by=row["held_by"], decided_at=row["decided_at"], decided_by=row["decided_by"],
    )


class QuarantineMixin:
    """Review-queue persistence over ``self.sql``."""

    sql: SQL
    db: Any  # the engine: ``writing()``

    def hold(self, draft: HeldDraft) -> HeldEntry:
        with self.db.writing():
            row = self.sql.one(
                "INSERT INTO quarantine (subject_type, subject_id, source_id, org_id, label, "
                "score, rules, held_visibility, status, held_at, held_by) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) "
                "ON CONFLICT (subject_type, subject_id) DO UPDATE SET label = excluded.label, "
                "score = excluded.score, rules = excluded.rules, "
                "held_visibility = excluded.held_visibility, status = 'pending', "
                "held_at = excluded.held_at, held_by = excluded.held_by, decided_at = NULL, "
                f"decided_by = NULL RETURNING {_COLUMNS}",
                (draft.subject_type, draft.subject_id, draft.source_id, draft.org_id,
                 draft.label, draft.score, json.dumps(list(draft.rules)),
                 draft.held_visibility, draft.held_at, draft.held_by),
            )
        assert row is not None  # INSERT ... RETURNING always returns its row
        return _entry(row)

    def held_entry(self, entry_id: int) -> HeldEntry | None:
        row = self.sql.one(f"SELECT {_COLUMNS} FROM quarantine WHERE id = ?", (entry_id,))
        return None if row is None else _entry(row)

    def held_entry_for(self, subject_type: str, subject_id: str) -> HeldEntry | None:
        row = self.sql.one(
            f"SELECT {_COLUMNS} FROM quarantine WHERE subject_type = ? AND subject_id = ?",
            (subject_type, subject_id))
        return None if row is None else _entry(row)

    def held_entries(self, source_id: str, *, status: str | None, limit: int,
                     after_id: int = 0) -> list[HeldEntry]:
        params: list[object] = [source_id, after_id]
        only = ""
        if status is not None:
            only, params = " AND status = ?", [*params, status]
        rows = self.sql.all(
            f"SELECT {_COLUMNS} FROM quarantine WHERE source_id = ? AND id > ?{only} "
            "ORDER BY id LIMIT ?", (*params, limit))
        return [_entry(row) for row in rows]

    def decide_held(self, entry_id: int, status: str, now: str, by: str) -> None:
        with self.db.writing():
            self.sql.execute(
                "UPDATE quarantine SET status = ?, decided_at = ?, decided_by = ? WHERE id = ?",
                (status, now, by, entry_id))

    def set_memory_quarantined(self, memory_id: int, quarantined: bool, now: str) -> None:
        with self.db.writing():
            self.sql.execute(
                "UPDATE memories SET quarantined = ?, updated_at = ? WHERE id = ?",
                (int(quarantined), now, memory_id))

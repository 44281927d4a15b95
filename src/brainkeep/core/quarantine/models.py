"""The values of the review queue."""

from __future__ import annotations

from dataclasses import dataclass

SUBJECTS = ("memory", "page")
STATUSES = ("pending", "released", "rejected", "replaced")


@dataclass(frozen=True)
class HeldDraft:
    """A held write about to be queued (the store assigns ``id``)."""

    subject_type: str  # memory | page
    subject_id: str  # the memory's uuid, or the page's row id
    source_id: str
    org_id: str | None
    label: str  # memory #id, or the page slug: what the review list names
    score: float
    rules: tuple[str, ...]
    held_at: str
    held_by: str  # the writer (the event's actor)
    held_visibility: str | None = None  # pages: the visibility the content asked for


@dataclass(frozen=True)
class HeldEntry:
    """One row of the review queue.

    ``status``: ``pending`` (hidden, awaiting review), ``released`` (the
    operator made it readable), ``rejected`` (deleted, stays hidden) or
    ``replaced`` (a page whose later clean version took its place).
    """

    id: int
    subject_type: str
    subject_id: str
    source_id: str
    org_id: str | None
    label: str
    score: float
    rules: tuple[str, ...]
    held_visibility: str | None
    status: str
    held_at: str
    held_by: str
    decided_at: str | None = None
    decided_by: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id, "subject_type": self.subject_type, "subject_id": self.subject_id,
            "org_id": self.org_id, "label": self.label, "score": self.score,
            "rules": list(self.rules), "status": self.status, "held_at": self.held_at,
            "held_by": self.held_by, "decided_at": self.decided_at,
            "decided_by": self.decided_by,
        }

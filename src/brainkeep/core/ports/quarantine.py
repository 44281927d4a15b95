"""The review queue's repository (what core/quarantine/ needs from persistence)."""

from __future__ import annotations

from typing import Protocol

from brainkeep.core.quarantine.models import HeldDraft, HeldEntry


class QuarantineRepository(Protocol):
    """The ``quarantine`` table (migration 0015) and the memory flag it mirrors."""

    def hold(self, draft: HeldDraft) -> HeldEntry:
        """Queue a held write; a subject held again (a page re-put) is pending again."""
        ...

    def held_entry(self, entry_id: int) -> HeldEntry | None: ...

    def held_entry_for(self, subject_type: str, subject_id: str) -> HeldEntry | None: ...

    def held_entries(self, source_id: str, *, status: str | None, limit: int,
                     after_id: int = 0) -> list[HeldEntry]:
        """Entries of one source in id order (``status`` None: every status)."""
        ...

    def decide_held(self, entry_id: int, status: str, now: str, by: str) -> None:
        """Record the operator's decision (or ``replaced``) on one entry."""
        ...

    def set_memory_quarantined(self, memory_id: int, quarantined: bool, now: str) -> None:
        """Flip ``memories.quarantined`` (release clears it; the event records the state)."""
        ...

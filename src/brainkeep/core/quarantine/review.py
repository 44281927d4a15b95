"""The operator's review of held writes: list, show, release, reject.

Only an operator reviews: the local CLI (``brainkeep quarantine``), or a
console viewer with the ``admin`` scope. A bound operator (an admin token
with ``--org``) sees and decides only its own org's memories; held pages
belong to no org and are the unbound operator's (core/tenant_fence.py).
Release and reject are audited events (``memory.release``/``memory.reject``,
``page.release``/``page.reject``) whose ``state_hash`` ``verify`` checks
against the row, so a flag flipped in the database is found.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core import events
from brainkeep.core.clock import Clock
from brainkeep.core.context import Caller
from brainkeep.core.injection import Verdict, scan
from brainkeep.core.models import Memory, Page
from brainkeep.core.pages import PageService
from brainkeep.core.ports.composites import QuarantineStore
from brainkeep.core.quarantine.models import STATUSES, HeldEntry
from brainkeep.core.tenant_fence import operator_covers
from brainkeep.errors import InvalidInput, NotFound, PermissionDenied

LIST_LIMIT_MAX = 500


@dataclass(frozen=True)
class HeldItem:
    """One entry with what it holds: the text (for the operator's eyes) and its verdict now."""

    entry: HeldEntry
    text: str | None  # None: the row is gone (hard delete) or redacted
    verdict: Verdict

    def to_dict(self) -> dict[str, object]:
        return {**self.entry.to_dict(), "text": self.text,
                "score_now": self.verdict.score, "rules_now": list(self.verdict.rules)}


@dataclass(frozen=True)
class QuarantineService:
    """The review queue of one source."""

    store: QuarantineStore
    clock: Clock
    pages: PageService
    source_id: str

    def _operator(self, caller: Caller) -> None:
        if caller.remote and "admin" not in caller.scopes:
            raise PermissionDenied(
                "Reviewing held writes needs the admin scope.",
                suggestion="Use the local CLI (`brainkeep quarantine`) or an admin token.")

    def _covers(self, caller: Caller, entry: HeldEntry) -> bool:
        return entry.source_id == self.source_id and operator_covers(caller.org_id, entry.org_id)

    def entries(self, caller: Caller, *, status: str | None = "pending", limit: int = 50,
             after_id: int = 0) -> list[HeldEntry]:
        """Entries in id order (``status`` None: all) that ``caller`` may review."""
        self._operator(caller)
        if status is not None and status not in STATUSES:
            raise InvalidInput(f"Unknown status {status!r}.",
                               suggestion=f"Use one of: {', '.join(STATUSES)}.", field="status")
        if not 1 <= limit <= LIST_LIMIT_MAX:
            raise InvalidInput(f"limit must be between 1 and {LIST_LIMIT_MAX}.", field="limit")
        found: list[HeldEntry] = []
        cursor = after_id
        while len(found) < limit:
            batch = self.store.held_entries(self.source_id, status=status, limit=limit,
                                            after_id=cursor)
            found += [e for e in batch if self._covers(caller, e)]
            if len(batch) < limit:
                break
            cursor = batch[-1].id
        return found[:limit]

    def entry(self, entry_id: int, caller: Caller) -> HeldEntry:
        """One entry ``caller`` may review (``NotFound`` otherwise, never a hint)."""
        self._operator(caller)
        entry = self.store.held_entry(entry_id)
        if entry is None or not self._covers(caller, entry):
            raise NotFound(f"No held write #{entry_id}.",
                           suggestion="List them with `brainkeep quarantine list`.", field="id")
        return entry

    def show(self, entry_id: int, caller: Caller) -> HeldItem:
        """The entry, its text and how the current rules score it."""
        entry = self.entry(entry_id, caller)
        text: str | None = None
        if entry.subject_type == "memory":
            memory = self.store.get_memory_by_uuid(entry.subject_id)
            text = None if memory is None or memory.redacted_at else memory.text
        else:
            page = self._page(entry, include_deleted=True)
            text = None if page is None else page.content
        return HeldItem(entry, text, scan(text) if text else Verdict(0.0, ()))

    def release(self, entry_id: int, caller: Caller) -> HeldEntry:
        """Make a pending write readable under its ordinary rules (audited)."""
        return self._decide(entry_id, caller, "released")

    def reject(self, entry_id: int, caller: Caller) -> HeldEntry:
        """Delete a pending write; it stays quarantined and out of every read (audited)."""
        return self._decide(entry_id, caller, "rejected")

    def _decide(self, entry_id: int, caller: Caller, status: str) -> HeldEntry:
        actor = caller.client_id
        with self.store.transaction():
            entry = self.entry(entry_id, caller)
            if entry.status != "pending":
                raise InvalidInput(
                    f"Held write #{entry_id} is already {entry.status}.",
                    suggestion="Only pending writes can be released or rejected.", field="id")
            if entry.subject_type == "memory":
                self._decide_memory(entry, status, actor)
            else:
                self._decide_page(entry, status, actor)
            now = self.clock.now_ts()
            self.store.decide_held(entry.id, status, now, actor)
        decided = self.store.held_entry(entry.id)
        assert decided is not None
        return decided

    def _decide_memory(self, entry: HeldEntry, status: str, actor: str) -> None:
        memory = self.store.get_memory_by_uuid(entry.subject_id)
        if memory is None or memory.deleted_at:
            raise NotFound(f"Held memory of #{entry.id} is gone.", field="id")
        now = self.clock.now_ts()
        if status == "released":
            self.store.set_memory_quarantined(memory.id, False, now)
            build = events.memory_release
        else:
            self.store.mark_memory_deleted(memory.id, now, "reject")
            build = events.memory_reject
        after: Memory | None = self.store.get_memory(memory.id)
        assert after is not None
        self.store.append_event(build(memory, actor=actor, quarantine_id=entry.id, after=after),
                                now)

    def _page(self, entry: HeldEntry, *, include_deleted: bool = False) -> Page | None:
        page = self.store.get_page(self.source_id, entry.label, include_deleted=include_deleted)
        return page if page is not None and str(page.id) == entry.subject_id else None

    def _decide_page(self, entry: HeldEntry, status: str, actor: str) -> None:
        page = self._page(entry)
        if page is None:
            raise NotFound(f"Held page of #{entry.id} is gone.", field="id")
        if status == "released":
            self.pages.release_held(page, actor=actor, entry_id=entry.id)
        else:
            self.pages.reject_held(page, actor=actor, entry_id=entry.id)

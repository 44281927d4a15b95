"""Holding a write for review: the one place a write path turns a verdict into a queue row.

Both write paths call here inside their transaction, after the row and its
event are written: ``core/memory/writes.insert`` (every memory: MCP
``remember``, gRPC ``Remember`` and ``Consolidate``, the CLI, transcript
banking and hooks that write through ``FactService``) and
``core/pages.PageService.put_page`` (``put_page``, ``brainkeep put`` and
``import``). The row itself is what hides the write (``memories.quarantined``;
a page stored ``private``); the queue row says why, for the review.
"""

from __future__ import annotations

from brainkeep.core.injection import Verdict
from brainkeep.core.models import Memory, Page
from brainkeep.core.ports.quarantine import QuarantineRepository
from brainkeep.core.quarantine.models import HeldDraft, HeldEntry


def hold_memory(store: QuarantineRepository, memory: Memory, verdict: Verdict, now: str, *,
                actor: str) -> HeldEntry:
    """Queue a memory stored quarantined (inside the insert's transaction)."""
    return store.hold(HeldDraft(
        subject_type="memory", subject_id=memory.uuid, source_id=memory.source_id,
        org_id=memory.org_id, label=f"memory #{memory.id}", score=verdict.score,
        rules=verdict.rules, held_at=now, held_by=actor))


def hold_page(store: QuarantineRepository, page: Page, verdict: Verdict, now: str, *, actor: str,
              asked_visibility: str) -> HeldEntry:
    """Queue a page stored private because its content scored (inside the put's transaction)."""
    return store.hold(HeldDraft(
        subject_type="page", subject_id=str(page.id), source_id=page.source_id, org_id=None,
        label=page.slug, score=verdict.score, rules=verdict.rules, held_at=now, held_by=actor,
        held_visibility=asked_visibility))


def clear_page(store: QuarantineRepository, page: Page, now: str, *, actor: str) -> None:
    """A clean version of a held page replaced it: its pending entry is ``replaced``."""
    entry = store.held_entry_for("page", str(page.id))
    if entry is not None and entry.status == "pending":
        store.decide_held(entry.id, "replaced", now, actor)

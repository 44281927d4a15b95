"""The review queue (migration 0015) and the memory flag it mirrors, on both engines."""

from __future__ import annotations

from brainkeep.core.models import MemoryDraft
from brainkeep.core.ports.store import Store
from brainkeep.core.quarantine.models import HeldDraft
from tests.store.contract import NOW, insert_memory


def _held(subject_id: str, *, kind: str = "memory", score: float = 1.5) -> HeldDraft:
    return HeldDraft(subject_type=kind, subject_id=subject_id, source_id="default",
                     org_id="acme", label=f"{kind} {subject_id}", score=score,
                     rules=("override", "send_to"), held_at=NOW, held_by="remote",
                     held_visibility="world" if kind == "page" else None)


def test_hold_lists_and_decides(store: Store) -> None:
    with store.transaction():
        first = store.hold(_held("u-1"))
        second = store.hold(_held("7", kind="page"))
    assert first.status == "pending" and first.rules == ("override", "send_to")
    assert first.org_id == "acme" and second.held_visibility == "world"
    assert [e.id for e in store.held_entries("default", status="pending", limit=10)] == [
        first.id, second.id]
    assert store.held_entries("default", status="pending", limit=10, after_id=first.id)[0].id \
        == second.id
    assert store.held_entries("other", status=None, limit=10) == []
    with store.transaction():
        store.decide_held(first.id, "released", NOW, "local")
    decided = store.held_entry(first.id)
    assert decided is not None and decided.status == "released" and decided.decided_by == "local"
    assert [e.id for e in store.held_entries("default", status="pending", limit=10)] == [
        second.id]
    assert len(store.held_entries("default", status=None, limit=10)) == 2
    assert store.held_entry(999_999) is None


def test_holding_a_subject_again_makes_it_pending_again(store: Store) -> None:
    with store.transaction():
        entry = store.hold(_held("9", kind="page"))
        store.decide_held(entry.id, "replaced", NOW, "local")
        again = store.hold(_held("9", kind="page", score=2.0))
    assert again.id == entry.id and again.status == "pending" and again.score == 2.0
    assert again.decided_at is None
    found = store.held_entry_for("page", "9")
    assert found is not None and found.id == entry.id
    assert store.held_entry_for("memory", "9") is None


def test_the_memory_flag_is_stored_and_cleared(store: Store) -> None:
    memory = insert_memory(store, MemoryDraft(text="held text", quarantined=True))
    assert memory.quarantined
    with store.transaction():
        store.set_memory_quarantined(memory.id, False, NOW)
    cleared = store.get_memory(memory.id)
    assert cleared is not None and not cleared.quarantined

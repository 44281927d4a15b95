"""Contract: the tamper scans the verifier streams (store/sqlite/integrity.py).

Each scan pairs a row with the newest hashes its events recorded; the
verifier (core/verify.py, core/access_checks.py) does the comparing.
"""

from __future__ import annotations

from brainkeep.core.audit import memory_state_hash
from brainkeep.core.memory.models import Delegation
from brainkeep.core.models import MemoryDraft, NewEvent
from brainkeep.core.ports.store import Store
from tests.store.contract import NOW, insert_memory, new_event, put_page, ts


def test_chain_tip_and_event_at(store: Store) -> None:
    assert store.chain_tip() is None
    assert store.event_at(1) is None
    with store.transaction():
        first = store.append_event(new_event(1), NOW)
        second = store.append_event(new_event(2), NOW)
    assert store.chain_tip() == (2, second.hash)
    found = store.event_at(1)
    assert found is not None and (found.seq, found.hash) == (1, first.hash)
    assert store.event_at(3) is None


def test_state_marker_is_the_first_event_recording_a_state_hash(store: Store) -> None:
    with store.transaction():
        store.append_event(new_event(1), NOW)
    assert store.state_marker_seq() is None  # an old brain: nothing recorded yet
    with store.transaction():
        store.append_event(NewEvent("acl.grant", "acl", "a", {"acl_hash": "h"}), NOW)
        store.append_event(NewEvent("page.put", "page", "1", {"state_hash": "s"}), NOW)
    assert store.state_marker_seq() == 2


def test_memory_states_carry_the_newest_recorded_hashes(store: Store) -> None:
    a = insert_memory(store, MemoryDraft(text="one", agent_id="a1", tags=("x",)), ts(1))
    b = insert_memory(store, MemoryDraft(text="two", agent_id="a1", thread_id="t"), ts(2))
    with store.transaction():
        # A later event without state_hash does not hide the newest one with it.
        store.append_event(NewEvent("memory.touch", "memory", a.uuid, {}), ts(3))
    states = list(store.iter_memory_states("a1", None))
    assert [s.memory.uuid for s in states] == [a.uuid, b.uuid]
    first = states[0]
    assert first.recorded_content == a.content_hash
    assert first.recorded_state == memory_state_hash(a)
    assert first.tag_rows == ("x",)
    assert first.last_seq == 3
    assert [s.memory.uuid for s in store.iter_memory_states("a1", "t")] == [b.uuid]
    assert list(store.iter_memory_states("a1", None, created_before=ts(1)))[0].memory.id == a.id
    assert list(store.iter_vanished_memories(None, None)) == []
    with store.transaction():
        store.append_event(NewEvent("memory.insert", "memory", "gone-uuid",
                                    {"owner": "a1", "content_hash": "c"}), ts(4))
        store.append_event(NewEvent("memory.insert", "memory", "purged-uuid",
                                    {"owner": "a1", "content_hash": "d"}), ts(4))
        store.append_event(NewEvent("memory.delete", "memory", "purged-uuid",
                                    {"strategy": "hard_delete"}), ts(5))
    assert list(store.iter_vanished_memories("a1", None)) == ["gone-uuid"]
    assert list(store.iter_vanished_memories("someone-else", None)) == []


def test_page_states_and_vanished_pages(store: Store) -> None:
    page = put_page(store, "people/alice", "# Alice\n")
    (state,) = store.iter_page_states()
    assert (state.id, state.slug, state.visibility, state.deleted_at) == (
        str(page.id), "people/alice", "world", None)
    assert state.recorded_content == page.content_hash and state.recorded_state
    assert list(store.iter_vanished_pages()) == []
    with store.transaction():
        store.append_event(NewEvent("page.put", "page", "999", {"slug": "ghost/page"}), NOW)
    (gone,) = store.iter_vanished_pages()
    assert (gone.subject_id, gone.label) == ("999", "ghost/page")


def test_grant_states_and_vanished_grants(store: Store) -> None:
    memory = insert_memory(store, MemoryDraft(text="shared", agent_id="owner"), ts(1))
    with store.transaction():
        acl = store.upsert_acl(acl_id="acl-1", memory_id=memory.id, grantee="bob",
                                     permission="read", granted_by="owner", now=ts(2),
                                     expires_at=None)
        store.append_event(NewEvent("acl.grant", "acl", acl, {"acl_hash": "h1"}), ts(2))
        store.insert_delegation(
            Delegation(id="d-1", owner="owner", delegator="owner", delegate="carol",
                       permission="read", selector="ids", depth=1, max_depth=2,
                       parent_id=None, created_at=ts(3), expires_at=None),
            [memory.id], [])
        store.append_event(NewEvent("delegation.create", "delegation", "d-1",
                                    {"memory_ids": [memory.uuid], "delegation_hash": "h2"}),
                           ts(3))
        store.append_event(NewEvent("acl.grant", "acl", "acl-gone", {"memory_id": "m",
                                                                      "acl_hash": "h3"}), ts(4))
        store.append_event(NewEvent("acl.grant", "acl", "acl-revoked", {"acl_hash": "h4"}), ts(4))
        store.append_event(NewEvent("acl.revoke", "acl", "acl-revoked", {"acl_hash": None}),
                           ts(5))
    (row,) = store.iter_acl_states()
    assert (row.id, row.memory_uuid, row.grantee, row.recorded) == (
        "acl-1", memory.uuid, "bob", "h1")
    (d,) = store.iter_delegation_states()
    assert (d.id, d.item_uuids, d.logged_memory_ids, d.recorded, d.tags) == (
        "d-1", (memory.uuid,), (memory.uuid,), "h2", ())
    gone = {(v.subject_type, v.subject_id): v for v in store.iter_vanished_grants()}
    assert set(gone) == {("acl", "acl-gone"), ("acl", "acl-revoked")}
    assert gone[("acl", "acl-gone")].removed is False
    assert gone[("acl", "acl-gone")].label == "m"
    assert gone[("acl", "acl-revoked")].removed is True

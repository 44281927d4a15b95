"""Contract: the Mnemo side: ACLs, delegations, forgetting, topics, checkpoints, audit scans."""

from __future__ import annotations

from dataclasses import replace

from brainkeep.core.events import memory_delete
from brainkeep.core.memory.models import Checkpoint, Delegation, Grant
from brainkeep.core.models import Memory, MemoryDraft, NewEvent
from brainkeep.core.ports.store import Store
from tests.store.contract import NOW, insert_memory, ts


def remember(store: Store, text: str, *, agent: str = "owner", at: float = 0,
             **fields: object) -> Memory:
    draft = MemoryDraft(text=text, agent_id=agent, origin="grpc", **fields)  # type: ignore[arg-type]
    return insert_memory(store, draft, ts(at))


def delegation(did: str, *, selector: str, delegate: str = "helper", depth: int = 0,
               expires_at: str | None = None, permission: str = "read") -> Delegation:
    return Delegation(id=did, owner="owner", delegator="owner", delegate=delegate,
                      permission=permission, selector=selector, depth=depth, max_depth=2,
                      parent_id=None, created_at=NOW, expires_at=expires_at)


# -- ACLs and scope ------------------------------------------------------------------


def test_acl_upsert_keeps_one_row_per_grantee(store: Store) -> None:
    memory = remember(store, "shared note", scope="shared", visibility="private")
    with store.transaction():
        first = store.upsert_acl(acl_id="acl-1", memory_id=memory.id, grantee="bob",
                                       permission="read", granted_by="owner", now=ts(1),
                                       expires_at=None)
        again = store.upsert_acl(acl_id="acl-2", memory_id=memory.id, grantee="bob",
                                       permission="write", granted_by="owner", now=ts(2),
                                       expires_at=ts(50))
    assert first == again == "acl-1"  # re-granting updates the existing row
    assert store.grants_for(memory, "bob", ts(10)) == [Grant("write", "acl", expires_at=ts(50))]
    assert store.grants_for(memory, "bob", ts(50)) == []  # expired
    assert store.grants_for(memory, "carol", ts(10)) == []


def test_set_scope_changes_scope_and_visibility(store: Store) -> None:
    memory = remember(store, "private note", scope="private", visibility="private")
    with store.transaction():
        store.set_memory_scope(memory.id, "public", "world", ts(5))
    changed = store.get_memory(memory.id)
    assert changed is not None
    assert (changed.scope, changed.visibility, changed.updated_at) == ("public", "world", ts(5))
    assert changed.content_hash == memory.content_hash  # not a hashed field


# -- delegations -----------------------------------------------------------------------


def test_delegation_selectors_cover_the_right_memories(store: Store) -> None:
    tagged = remember(store, "tagged", tags=("project-x",), scope="shared")
    picked = remember(store, "picked", scope="shared")
    other = remember(store, "other", scope="shared")
    foreign = remember(store, "someone else's", agent="stranger", scope="shared")
    with store.transaction():
        store.insert_delegation(delegation("d-tags", selector="tags"), [], ["project-x"])
        store.insert_delegation(delegation("d-ids", selector="ids"), [picked.id], [])
        store.insert_delegation(
            delegation("d-all", selector="all", delegate="deputy", depth=1,
                       expires_at=ts(100), permission="share"), [], [])

    def via(memory: Memory, agent: str, now: str = ts(10)) -> list[str | None]:
        return [g.delegation_id for g in store.grants_for(memory, agent, now)]

    assert via(tagged, "helper") == ["d-tags"]
    assert via(picked, "helper") == ["d-ids"]
    assert via(other, "helper") == []
    assert via(other, "deputy") == ["d-all"]
    assert via(other, "deputy", ts(100)) == []  # expired
    assert via(foreign, "deputy") == []  # a delegation covers its owner's memories only
    grant = store.grants_for(other, "deputy", ts(10))[0]
    assert grant == Grant("share", "delegation", delegation_id="d-all", depth=1, max_depth=2,
                          expires_at=ts(100))


# -- forgetting ----------------------------------------------------------------------------


def test_mark_deleted_keeps_the_row(store: Store) -> None:
    memory = remember(store, "archive me")
    with store.transaction():
        store.mark_memory_deleted(memory.id, ts(3), "archive")
    stored = store.get_memory(memory.id)
    assert stored is not None
    assert (stored.deleted_at, stored.delete_strategy, stored.consolidation_state) == (
        ts(3), "archive", "archived")


def test_hard_delete_removes_the_row_and_a_logged_one_is_a_tombstone(
    store: Store,
) -> None:
    first = remember(store, "keep", at=1)
    doomed = remember(store, "remove me", at=2, tags=("t",))
    with store.transaction():
        store.upsert_acl(acl_id="acl", memory_id=doomed.id, grantee="bob",
                               permission="read", granted_by="owner", now=NOW, expires_at=None)
        store.hard_delete_memory(doomed.id)
        store.append_event(memory_delete(doomed, actor="owner", strategy="hard_delete",
                                         after=None), ts(3))
    assert store.get_memory(doomed.id) is None
    assert store.get_memory_by_uuid(doomed.uuid) is None
    assert store.memories_with_tag("default", "t") == []
    assert store.hard_deleted_memories() == [(doomed.uuid, doomed.content_hash, first.content_hash)]


def test_redact_replaces_text_but_keeps_hashes(store: Store) -> None:
    memory = remember(store, "my secret", metadata={"k": "v"})
    with store.transaction():
        store.redact_memory(memory.id, ts(4), "[REDACTED]")
    stored = store.get_memory(memory.id)
    assert stored is not None
    assert (stored.text, stored.metadata, stored.redacted_at) == ("[REDACTED]", {}, ts(4))
    assert stored.deleted_at == ts(4) and stored.delete_strategy == "redact"
    assert (stored.content_hash, stored.prev_hash) == (memory.content_hash, memory.prev_hash)


def test_set_importance_and_memories_with_tag(store: Store) -> None:
    a = remember(store, "a", tags=("x", "y"))
    b = remember(store, "b", tags=("x",))
    remember(store, "c", tags=("y",))
    with store.transaction():
        store.set_memory_importance(a.id, 0.9, ts(7))
    assert [m.id for m in store.memories_with_tag("default", "x")] == [a.id, b.id]
    assert store.memories_with_tag("other-source", "x") == []
    updated = store.get_memory(a.id)
    assert updated is not None and (updated.importance, updated.updated_at) == (0.9, ts(7))


# -- access counts, lookups, relations ------------------------------------------------------


def test_add_access_counts_without_touching_updated_at(store: Store) -> None:
    a = remember(store, "a")
    b = remember(store, "b")
    with store.transaction():
        store.add_memory_access([(a.id, 2), (b.id, 1)], ts(9))
        store.add_memory_access([(a.id, 3)], ts(10))
    found = store.memories_by_uuid([a.uuid, b.uuid, "missing"])
    assert set(found) == {a.uuid, b.uuid}
    assert (found[a.uuid].access_count, found[a.uuid].last_accessed_at) == (5, ts(10))
    assert found[b.uuid].access_count == 1
    assert found[a.uuid].updated_at == a.updated_at
    assert store.memories_by_uuid([]) == {}


def test_relations_are_found_from_either_end(store: Store) -> None:
    target = remember(store, "target")
    source = remember(store, "source", related_to=(target.uuid, "dangling-uuid"))
    unrelated = remember(store, "unrelated")
    assert store.memory_relations([source.id]) == [(source.id, target.id)]
    assert store.memory_relations([target.id]) == [(source.id, target.id)]
    assert store.memory_relations([unrelated.id]) == []
    assert store.memory_relations([]) == []


# -- topics ------------------------------------------------------------------------------


def test_topic_members_keep_their_order(store: Store) -> None:
    topic = remember(store, "topic doc")
    members = [remember(store, f"m{n}") for n in range(3)]
    uuids = [members[2].uuid, members[0].uuid, members[1].uuid]
    with store.transaction():
        store.mark_topic_document(topic.id, 2)
        store.add_topic_members(topic.id, uuids)
    assert store.topic_members(topic.id) == uuids
    assert store.topic_members(members[0].id) == []
    stored = store.get_memory(topic.id)
    assert stored is not None and (stored.consolidation_state, stored.version) == ("topic", 2)


# -- checkpoints ----------------------------------------------------------------------------


def checkpoint(cid: str, at: float, *, branch: str = "main", parent: str | None = None,
               refs: tuple[str, ...] = (), cursor: int = 0) -> Checkpoint:
    return Checkpoint(seq=0, id=cid, agent_id="owner", thread_id="t1", branch_name=branch,
                      parent_id=parent, merge_parent_id=None, kind="checkpoint", label=f"cp {cid}",
                      state_snapshot={"step": cid, "nested": [1, 2]}, metadata={"m": 1},
                      memory_refs=refs, event_cursor=cursor, created_at=ts(at))


def test_checkpoints_per_branch(store: Store) -> None:
    with store.transaction():
        c1 = store.insert_checkpoint(checkpoint("c1", 1, refs=("u1",), cursor=3))
        c2 = store.insert_checkpoint(checkpoint("c2", 2, parent="c1"))
        side = store.insert_checkpoint(checkpoint("s1", 3, branch="side", parent="c1"))
        c3 = store.insert_checkpoint(checkpoint("c3", 4, parent="c2"))
    assert c1.seq < c2.seq < side.seq < c3.seq  # the engine assigns seq
    assert c1 == replace(checkpoint("c1", 1, refs=("u1",), cursor=3), seq=c1.seq)
    assert store.get_checkpoint("c2") == c2
    assert store.get_checkpoint("missing") is None
    assert store.branch_head("owner", "t1", "main") == c3
    assert store.branch_head("owner", "t1", "side") == side
    assert store.branch_head("owner", "t1", "none") is None
    assert store.branch_checkpoints("owner", "t1", "main") == [c1, c2, c3]
    assert store.branch_checkpoints("owner", "t1", "main", after_seq=c2.seq) == [c3]
    assert store.latest_checkpoint_before("owner", "t1", "main", ts(3)) == c2
    assert store.latest_checkpoint_before("owner", "t1", "main", ts(0)) is None


def test_thread_memories_now_and_as_of(store: Store) -> None:
    early = remember(store, "early", thread_id="t1", at=1)
    gone = remember(store, "gone later", thread_id="t1", at=2)
    remember(store, "other thread", thread_id="t2", at=2)
    remember(store, "other agent", agent="x", thread_id="t1", at=2)
    late = remember(store, "late", thread_id="t1", at=5)
    with store.transaction():
        store.mark_memory_deleted(gone.id, ts(4), "soft_delete")

    def ids(at: float, as_of: bool) -> list[int]:
        rows = store.thread_memories("default", "owner", "t1", at=ts(at), as_of=as_of)
        return [m.id for m in rows]

    assert ids(10, False) == [early.id, late.id]
    assert ids(3, True) == [early.id, gone.id]  # live at ts(3): created, not yet deleted
    assert ids(10, True) == [early.id, late.id]


def test_event_counts_for_checkpoints(store: Store) -> None:
    assert store.max_event_seq() == 0
    a = remember(store, "a", at=1)  # event seq 1
    b = remember(store, "b", at=2)  # event seq 2
    with store.transaction():
        store.mark_memory_deleted(a.id, ts(3), "soft_delete")
        store.append_event(memory_delete(a, actor="owner", strategy="soft_delete",
                                         after=store.get_memory(a.id)), ts(3))
        store.append_event(NewEvent("page.put", "page", "1", {}), ts(4))
    assert store.max_event_seq() == 4 == store.event_head()
    uuids = [a.uuid, b.uuid]
    assert store.count_memory_events(uuids, max_seq=None, max_ts=None) == 3
    assert store.count_memory_events(uuids, max_seq=2, max_ts=None) == 2
    assert store.count_memory_events(uuids, max_seq=None, max_ts=ts(1)) == 1
    assert store.count_memory_events([b.uuid], max_seq=1, max_ts=None) == 0
    assert store.count_memory_events([], max_seq=None, max_ts=None) == 0


# -- audit scans -----------------------------------------------------------------------------


def test_audit_events_slice_by_agent_and_thread(store: Store) -> None:
    mine = remember(store, "mine", thread_id="t1", at=1)
    remember(store, "theirs", agent="other", thread_id="t1", at=2)
    with store.transaction():
        # Another agent forgets my memory: it still counts for me (the owner).
        store.append_event(memory_delete(mine, actor="other", strategy="decay",
                                         after=mine), ts(3))
        store.append_event(NewEvent("memory.recall", "memory", "batch",
                                    {"readers": {"owner": 2, "reader-x": 1}}), ts(4))
        store.append_event(NewEvent("page.put", "page", "1", {"agent_id": "owner"}), ts(5))
    mine_events = list(store.memory_audit_events("owner", None))
    assert [(e.seq, e.kind) for e in mine_events] == [
        (1, "memory.insert"), (3, "memory.delete"), (4, "memory.recall")]
    assert mine_events[1].strategy == "decay" and mine_events[1].agent_id == "other"
    assert mine_events[2].readers == ("owner", "reader-x")
    assert [e.seq for e in store.memory_audit_events(None, "t1")] == [1, 2, 3]
    assert [e.seq for e in store.memory_audit_events(None, None)] == [1, 2, 3, 4]
    assert list(store.memory_audit_events("nobody", None)) == []


def test_fact_writes_by_metadata_key(store: Store) -> None:
    first = remember(store, "city is Paris", metadata={"city": "paris"}, at=1)
    second = remember(store, "city is Lyon", metadata={"city": "lyon"}, at=2)
    remember(store, "no key", metadata={"other": 1}, at=3)
    remember(store, "another agent", agent="x", metadata={"city": "rome"}, at=4)
    with store.transaction():
        store.mark_memory_deleted(first.id, ts(5), "soft_delete")
    writes = store.fact_key_writes("owner", None, "city")
    assert [(w.uuid, w.fact_id, w.created_at, w.retired) for w in writes] == [
        (first.uuid, "paris", ts(1), True),
        (second.uuid, "lyon", ts(2), False),
    ]
    assert len(store.fact_key_writes(None, None, "city")) == 3
    assert store.fact_key_writes("owner", None, "missing") == []

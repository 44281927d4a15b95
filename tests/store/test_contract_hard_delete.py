"""Contract: what a hard delete takes with it, and the scans that outlive the row.

Both engines declare the cascades in their migrations (``ON DELETE CASCADE``
on tags, relations, ACLs and topic membership); delegation items and
``superseded_by`` links are cleared by the engine. The audit scans judge a
gone row by its logged payload (tenant, owner).
"""

from __future__ import annotations

from brainkeep.core.events import memory_delete
from brainkeep.core.memory.models import Delegation
from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.ports.store import Store
from brainkeep.core.scope import ReadScope
from tests.store.contract import NOW, insert_memory, ts


def remember(store: Store, text: str, *, agent: str = "owner", at: float = 0,
             **fields: object) -> Memory:
    draft = MemoryDraft(text=text, agent_id=agent, origin="grpc", **fields)  # type: ignore[arg-type]
    return insert_memory(store, draft, ts(at))


def hard_delete(store: Store, memory: Memory, at: float) -> None:
    with store.transaction():
        store.hard_delete_memory(memory.id)
        store.append_event(memory_delete(memory, actor=memory.agent_id,
                                         strategy="hard_delete", after=None), ts(at))


def test_hard_delete_cascades_tags_relations_acls_topics_and_delegation_items(
    store: Store,
) -> None:
    target = remember(store, "target", at=1)
    doomed = remember(store, "doomed", at=2, tags=("t",), related_to=(target.uuid,),
                      scope="shared")
    keeper = remember(store, "keeper", at=3, tags=("t",), related_to=(target.uuid,))
    with store.transaction():
        store.upsert_acl(acl_id="acl-d", memory_id=doomed.id, grantee="bob",
                               permission="read", granted_by="owner", now=NOW, expires_at=None)
        store.upsert_acl(acl_id="acl-k", memory_id=keeper.id, grantee="bob",
                               permission="read", granted_by="owner", now=NOW, expires_at=None)
        store.mark_topic_document(doomed.id, 1)
        store.add_topic_members(doomed.id, [target.uuid, keeper.uuid])
        store.insert_delegation(
            Delegation(id="d-ids", owner="owner", delegator="owner", delegate="helper",
                       permission="read", selector="ids", depth=1, max_depth=2,
                       parent_id=None, created_at=NOW, expires_at=None),
            [doomed.id, keeper.id], [])
        store.expire_memory(target.id, ts(4), "superseded", superseded_by=doomed.id)
    hard_delete(store, doomed, 5)

    assert [m.id for m in store.memories_with_tag("default", "t")] == [keeper.id]
    assert store.memory_relations([target.id]) == [(keeper.id, target.id)]
    assert [a.id for a in store.list_acls()] == ["acl-k"]
    assert store.topic_members(doomed.id) == []
    assert not store.has_live_acl(doomed.id, ts(6))
    assert store.has_live_acl(keeper.id, ts(6))
    stored_target = store.get_memory(target.id)
    assert stored_target is not None and stored_target.superseded_by is None
    # the delegation survives, covering what is left of its selection
    assert [d.id for d in store.list_delegations()] == ["d-ids"]
    assert [g.delegation_id for g in store.grants_for(keeper, "helper", ts(6))] == ["d-ids"]


def test_scoped_audit_events_judge_a_gone_row_by_its_payload(store: Store) -> None:
    mine = remember(store, "mine", at=1, scope="private")
    acme = remember(store, "acme", at=2, scope="public", org_id="acme")
    hard_delete(store, mine, 3)
    hard_delete(store, acme, 4)
    owner = ReadScope(org_id=None, reader="owner")
    stranger = ReadScope(org_id=None, reader="stranger")
    seen = [(e.kind, e.subject_id) for e in
            store.memory_audit_events(None, None, scope=owner, now=ts(9))]
    # both of mine (insert, delete) pass on their payload; acme's are another tenant
    assert seen == [("memory.insert", mine.uuid), ("memory.delete", mine.uuid)]
    assert list(store.memory_audit_events(None, None, scope=stranger, now=ts(9))) == []
    tenant = ReadScope(org_id="acme", trusted=True)
    assert [e.seq for e in store.memory_audit_events(None, None, scope=tenant, now=ts(9))] == [
        2, 4]
    anonymous = ReadScope(org_id=None, reader="")
    assert list(store.memory_audit_events(None, None, scope=anonymous, now=ts(9))) == []


def test_fact_writes_read_every_json_value_type_alike(store: Store) -> None:
    values: list[object] = ["paris", 3, 0.5, True, False, None]
    for n, value in enumerate(values):
        remember(store, f"fact {n}", at=n, metadata={"k": value})
    facts = [w.fact_id for w in store.fact_key_writes("owner", None, "k")]
    # JSON null counts as absent; booleans read as 1/0 on every engine
    assert facts == ["paris", "3", "0.5", "1", "0"]
    # a key is one key, never a path
    dotted = remember(store, "dotted key", at=9, metadata={"a.b": "x", "a": {"b": "y"}})
    assert [(w.uuid, w.fact_id) for w in store.fact_key_writes(None, None, "a.b")] == [
        (dotted.uuid, "x")]

"""Contract: grants that Share made and revocation removes (migration 0010).

A memory Share turned shared (``by_grant``) is readable through a delegation
only while one of its ACLs is live; a memory written shared keeps today's
rule. Revocation removes rows: an ACL, or a delegation with its subtree.
"""

from __future__ import annotations

from dataclasses import replace

from brainkeep.core.memory.models import Delegation, MemoryFilter
from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.ports.store import Store
from tests.store.contract import NOW, insert_memory, ts


def remember(store: Store, text: str, **fields: object) -> Memory:
    draft = MemoryDraft(text=text, agent_id="owner", origin="grpc", **fields)  # type: ignore[arg-type]
    return insert_memory(store, draft, ts(0))


def by_tags(did: str, delegate: str, *, parent: str | None = None, depth: int = 1) -> Delegation:
    return Delegation(id=did, owner="owner", delegator="owner" if parent is None else "deputy",
                      delegate=delegate, permission="read", selector="tags", depth=depth,
                      max_depth=3, parent_id=parent, created_at=NOW, expires_at=None)


def readers(store: Store, memory: Memory, *agents: str, at: float = 10) -> set[str]:
    return {a for a in agents
            if store.visible_memories(MemoryFilter(source_id="default", reader=a, now=ts(at)),
                                   [memory.id])}


def test_a_share_made_shared_memory_follows_its_live_acls(store: Store) -> None:
    granted = remember(store, "shared by grant", scope="private", visibility="private",
                       tags=("proj",))
    written = remember(store, "written shared", scope="shared", visibility="private",
                       tags=("proj",))
    with store.transaction():
        store.set_memory_scope(granted.id, "shared", "private", ts(1), by_grant=True)
        for memory in (granted, written):
            store.upsert_acl(acl_id=f"acl-{memory.id}", memory_id=memory.id,
                                   grantee="bob", permission="read", granted_by="owner",
                                   now=ts(1), expires_at=ts(5))
        store.insert_delegation(by_tags("d-1", "carol"), [], ["proj"])
    row = store.get_memory(granted.id)
    assert row is not None and row.shared_by_grant and row.scope == "shared"
    assert not store.get_memory(written.id).shared_by_grant  # type: ignore[union-attr]
    assert store.has_live_acl(granted.id, ts(4))
    assert not store.has_live_acl(granted.id, ts(5))
    assert readers(store, granted, "bob", "carol", "owner", at=4) == {"bob", "carol", "owner"}
    # The ACL expired: the share is over, the delegation no longer covers it.
    assert readers(store, granted, "bob", "carol", "owner", at=6) == {"owner"}
    # Written shared: the delegation still covers it, as before migration 0010.
    assert readers(store, written, "bob", "carol", "owner", at=6) == {"carol", "owner"}
    # Any other scope change clears the flag.
    with store.transaction():
        store.set_memory_scope(granted.id, "shared", "private", ts(7))
    assert readers(store, granted, "carol", at=8) == {"carol"}


def test_acls_are_listed_and_deleted(store: Store) -> None:
    memory = remember(store, "listed", scope="shared", visibility="private")
    with store.transaction():
        store.upsert_acl(acl_id="acl-a", memory_id=memory.id, grantee="bob",
                               permission="read", granted_by="owner", now=ts(1), expires_at=None)
        store.upsert_acl(acl_id="acl-b", memory_id=memory.id, grantee="carol",
                               permission="write", granted_by="owner", now=ts(2),
                               expires_at=ts(9))
    listed = store.list_acls()
    assert [a.id for a in listed] == ["acl-b", "acl-a"]  # newest first
    assert (listed[0].memory_uuid, listed[0].owner, listed[0].expires_at) == (
        memory.uuid, "owner", ts(9))
    assert listed[0].status(ts(3)) == "active" and listed[0].status(ts(9)) == "expired"
    assert [a.id for a in store.list_acls(grantee="bob")] == ["acl-a"]
    assert [a.id for a in store.list_acls(memory_uuid=memory.uuid)] == ["acl-b", "acl-a"]
    assert store.list_acls(acl_id="acl-a")[0].grantee == "bob"
    with store.transaction():
        assert store.delete_acl("acl-a")
        assert not store.delete_acl("acl-a")
    assert [a.id for a in store.list_acls()] == ["acl-b"]
    assert store.grants_for(memory, "bob", ts(3)) == []


def test_delegation_trees_are_listed_and_deleted_whole(store: Store) -> None:
    memory = remember(store, "tree", scope="shared", visibility="private", tags=("proj",))
    root = by_tags("d-root", "deputy")
    child = replace(by_tags("d-child", "carol", parent="d-root", depth=2),
                    created_at=ts(1))
    grandchild = replace(by_tags("d-grand", "dave", parent="d-child", depth=3),
                         delegator="carol", created_at=ts(2))
    other = replace(by_tags("d-other", "erin"), created_at=ts(3))
    with store.transaction():
        for d in (root, child, grandchild, other):
            store.insert_delegation(d, [], ["proj"])
    assert store.delegation_tree("d-root") == ["d-root", "d-child", "d-grand"]
    assert store.delegation_tree("d-child") == ["d-child", "d-grand"]
    assert store.delegation_tree("nope") == []
    listed = store.list_delegations()
    assert [d.id for d in listed] == ["d-other", "d-grand", "d-child", "d-root"]
    assert listed[-1].tags == ("proj",) and listed[-1].status(ts(5)) == "active"
    assert [d.id for d in store.list_delegations(delegate="carol")] == ["d-child"]
    assert [d.id for d in store.list_delegations(owner="nobody")] == []
    assert readers(store, memory, "deputy", "carol", "dave", "erin") == {
        "deputy", "carol", "dave", "erin"}
    with store.transaction():
        store.delete_delegations(store.delegation_tree("d-root"))
    assert [d.id for d in store.list_delegations()] == ["d-other"]
    assert readers(store, memory, "deputy", "carol", "dave", "erin") == {"erin"}

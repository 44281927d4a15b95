"""Contract: memories (MCP facts and gRPC memories in one table) and their read scopes.

Kept deliberately simple: the visibility rules themselves are tested in
core; here each read method shows it applies the scope, the tenant and the
lifecycle, whatever engine compiles them.
"""

from __future__ import annotations

from brainkeep.core.audit import memory_hash
from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.ports.store import Store
from brainkeep.core.retrieval import FactFilter
from brainkeep.core.scope import ReadScope
from tests.store.contract import insert_memory, ts

LOCAL = ReadScope(trusted=True)
REMOTE = ReadScope()


def fact(store: Store, text: str, at: float = 0, **fields: object) -> Memory:
    if fields.get("visibility") == "private":
        fields.setdefault("scope", "private")
    return insert_memory(store, MemoryDraft(text=text, **fields), ts(at))  # type: ignore[arg-type]


def test_insert_memory_round_trips_every_field(store: Store) -> None:
    draft = MemoryDraft(
        text="Alice prefers tea", kind="preference", entity_slug="people/alice",
        visibility="private", provenance="chat", session_id="s1", confidence=0.8,
        valid_until=ts(100), origin="grpc", agent_id="a1", org_id="acme", thread_id="t1",
        memory_type="episodic", scope="shared", importance=0.7, tags=("x", "y"),
        metadata={"k": [1, "ü"]}, source_type="doc", source_ref="ref-1", created_by="me",
        decay_rate=0.1,
    )
    memory = insert_memory(store, draft, ts(1))
    assert memory.id > 0 and memory.fact_id == str(memory.id)
    assert (memory.text, memory.normalized_text) == ("Alice prefers tea", "alice prefers tea")
    assert (memory.kind, memory.entity_slug, memory.visibility, memory.scope) == (
        "preference", "people/alice", "private", "shared")
    assert (memory.agent_id, memory.org_id, memory.thread_id) == ("a1", "acme", "t1")
    assert (memory.tags, memory.metadata) == (("x", "y"), {"k": [1, "ü"]})
    assert (memory.valid_from, memory.valid_until) == (ts(1), ts(100))  # valid_from defaults
    assert (memory.created_at, memory.updated_at) == (ts(1), ts(1))
    assert memory.content_hash == memory_hash("Alice prefers tea", "a1", ts(1))
    assert memory.prev_hash is None  # first of its chain
    assert (memory.access_count, memory.quarantined, memory.version) == (0, False, 1)
    assert store.get_memory(memory.id) == memory
    assert store.get_memory_by_uuid(memory.uuid) == memory
    assert store.get_memory(memory.id + 1) is None
    assert store.get_memories([memory.id, memory.id + 1]) == {memory.id: memory}
    assert store.get_memories([]) == {}
    assert store.get_memory_by_uuid("missing") is None
    # The engine links the next memory of the same (agent, thread) chain.
    second = insert_memory(store, MemoryDraft(text="next", agent_id="a1", thread_id="t1"), ts(2))
    assert second.prev_hash == memory.content_hash


def test_find_active_duplicate_respects_entity_scope_and_lifecycle(store: Store) -> None:
    world = fact(store, "Alice likes tea", entity_slug="people/alice")
    private = fact(store, "Bob likes tea", entity_slug="people/bob", visibility="private")
    assert store.find_active_duplicate("default", "people/alice", "alice likes tea", ts(1),
                                       REMOTE) == world
    assert store.find_active_duplicate("default", None, "alice likes tea", ts(1), LOCAL) is None
    assert store.find_active_duplicate("default", "people/bob", "bob likes tea", ts(1),
                                       LOCAL) == private
    assert store.find_active_duplicate("default", "people/bob", "bob likes tea", ts(1),
                                       REMOTE) is None
    with store.transaction():
        store.expire_memory(world.id, ts(2), "forgotten")
    assert store.find_active_duplicate("default", "people/alice", "alice likes tea", ts(3),
                                       LOCAL) is None


def test_expire_memory_returns_the_row_as_stored(store: Store) -> None:
    old = fact(store, "Alice likes tea", 1)
    new = fact(store, "Alice likes coffee", 2)
    with store.transaction():
        expired = store.expire_memory(old.id, ts(3), "superseded", superseded_by=new.id)
        missing = store.expire_memory(10**9, ts(3), "gone")
    assert expired == store.get_memory(old.id)
    assert expired is not None and (expired.expired_at, expired.expired_reason,
                                    expired.superseded_by) == (ts(3), "superseded", new.id)
    assert missing is None


def test_list_memories_filters_compose(store: Store) -> None:
    a = fact(store, "Alice likes tea", 1, entity_slug="people/alice", session_id="s1")
    b = fact(store, "Alice moved to Lyon", 2, entity_slug="people/alice", kind="event")
    c = fact(store, "Bob is secret", 3, entity_slug="people/bob", visibility="private")
    d = fact(store, "Acme only", 4, org_id="acme")
    e = fact(store, "Expired tea fact", 5)
    with store.transaction():
        store.expire_memory(e.id, ts(6), "test")

    def ids(scope: ReadScope = LOCAL, **kwargs: object) -> list[int]:
        rows = store.list_memories("default", now=ts(10), scope=scope, **kwargs)  # type: ignore[arg-type]
        return [m.id for m in rows]

    assert ids() == [c.id, b.id, a.id]  # newest first; other tenants and expired left out
    assert ids(REMOTE) == [b.id, a.id]
    assert ids(ReadScope(org_id="acme", trusted=True)) == [d.id]
    assert ids(entity_slug="people/alice") == [b.id, a.id]
    assert ids(since=ts(2)) == [c.id, b.id]
    assert ids(session_id="s1") == [a.id]
    assert ids(kinds=("event",)) == [b.id]
    assert ids(text_contains="TEA") == [a.id]
    assert ids(text_contains="tea", include_expired=True) == [e.id, a.id]
    assert ids(limit=1) == [c.id]
    assert ids(entity_slug="people/alice", kinds=("fact",), since=ts(1)) == [a.id]
    assert ids(ReadScope(trusted=True, as_of=ts(5))) == [e.id, c.id, b.id, a.id]


def test_count_active_memories_and_expire(store: Store) -> None:
    old = fact(store, "Alice lives in Paris", entity_slug="people/alice")
    fact(store, "Alice is secret", entity_slug="people/alice", visibility="private")
    new = fact(store, "Alice lives in Lyon", entity_slug="people/alice")
    assert store.count_active_memories("default", "people/alice", ts(1), scope=LOCAL) == 3
    assert store.count_active_memories("default", "people/alice", ts(1), scope=REMOTE) == 2
    with store.transaction():
        store.expire_memory(old.id, ts(2), "superseded", superseded_by=new.id)
    expired = store.get_memory(old.id)
    assert expired is not None
    assert (expired.expired_at, expired.expired_reason, expired.superseded_by) == (
        ts(2), "superseded", new.id)
    assert not expired.is_active(ts(3))
    assert store.count_active_memories("default", "people/alice", ts(3), scope=LOCAL) == 2
    # valid_until in the past hides a fact too.
    fact(store, "Alice visits Rome", entity_slug="people/alice", valid_until=ts(5))
    assert store.count_active_memories("default", "people/alice", ts(4), scope=LOCAL) == 3
    assert store.count_active_memories("default", "people/alice", ts(5), scope=LOCAL) == 2


def test_facts_created_after_is_a_keyset(store: Store) -> None:
    a = fact(store, "a", 1)
    b = fact(store, "b", 1)
    c = fact(store, "c secret", 2, visibility="private")
    d = fact(store, "d", 3)

    def after(ts_: str, mid: int, scope: ReadScope = LOCAL, limit: int = 10) -> list[int]:
        rows = store.facts_created_after("default", ts_, mid, now=ts(10), scope=scope,
                                         limit=limit)
        return [m.id for m in rows]

    assert after(ts(0), 0) == [a.id, b.id, c.id, d.id]  # oldest first
    assert after(ts(1), a.id) == [b.id, c.id, d.id]
    assert after(ts(1), a.id, REMOTE) == [b.id, d.id]
    assert after(ts(0), 0, limit=2) == [a.id, b.id]
    assert after(ts(3), d.id) == []


def test_facts_created_after_seq_by_event_seq(store: Store) -> None:
    a = fact(store, "a", 5)  # seq 1 (clock ahead)
    b = fact(store, "b", 1)  # seq 2: an earlier stamp, committed later
    c = fact(store, "secret", 2, visibility="private")  # seq 3
    with store.transaction():
        store.expire_memory(a.id, ts(6), "test")

    def after(seq: int, upto: int, scope: ReadScope = LOCAL) -> list[tuple[int, int]]:
        rows = store.facts_created_after_seq("default", seq, upto_seq=upto, now=ts(10),
                                             scope=scope, limit=10)
        return [(s, m.id) for s, m in rows]

    head = store.event_head()
    assert after(0, head) == [(2, b.id), (3, c.id)]  # commit order; expired left out
    assert after(0, head, REMOTE) == [(2, b.id)]
    assert after(2, head) == [(3, c.id)]
    assert after(0, 2) == [(2, b.id)]


def test_fact_filter_reads(store: Store) -> None:
    a = fact(store, "Alice likes tea", 1, entity_slug="people/alice", session_id="s1")
    b = fact(store, "Alice secret tea", 2, entity_slug="people/alice", visibility="private")
    c = fact(store, "Bob likes coffee", 3, entity_slug="people/bob")
    gone = fact(store, "Old tea", 4)
    with store.transaction():
        store.expire_memory(gone.id, ts(5), "test")
    all_ids = [a.id, b.id, c.id, gone.id]
    local = FactFilter(now=ts(10), scope=LOCAL)
    remote = FactFilter(now=ts(10), scope=REMOTE)
    alice = FactFilter(now=ts(10), scope=LOCAL, entity_slug="people/alice")

    assert store.fact_ids_passing("default", all_ids, local) == {a.id, b.id, c.id}
    assert store.fact_ids_passing("default", all_ids, remote) == {a.id, c.id}
    assert store.fact_ids_passing("default", all_ids, alice) == {a.id, b.id}
    assert store.fact_ids_passing("default", [], local) == set()
    matching = store.memories_matching("default", all_ids, remote)
    assert sorted(matching) == [a.id, c.id] and matching[a.id].text == "Alice likes tea"
    assert store.fact_ids_matching("default", local, limit=10) == [c.id, b.id, a.id]
    assert store.fact_ids_matching("default", alice, limit=1) == [b.id]
    tea = FactFilter(now=ts(10), scope=LOCAL, text_contains="tea", include_expired=True,
                     until=ts(4))
    assert store.fact_ids_matching("default", tea, limit=10) == [gone.id, b.id, a.id]
    session = FactFilter(now=ts(10), scope=REMOTE, session_id="s1", since=ts(1))
    assert store.fact_ids_matching("default", session, limit=10) == [a.id]


def test_fact_candidates_of_one_entity(store: Store) -> None:
    a = fact(store, "Alice likes tea", 1, entity_slug="people/alice")
    b = fact(store, "Alice secret", 2, entity_slug="people/alice", visibility="private")
    fact(store, "Bob", 3, entity_slug="people/bob")

    def candidates(visibilities: tuple[str, ...], scope: ReadScope = LOCAL) -> list[int]:
        rows = store.fact_candidates("default", "people/alice", ts(10), scope=scope,
                                     visibilities=visibilities, model="m", dim=3, limit=10)
        assert all(vector is None for _, vector in rows)  # no vectors stored
        return [m.id for m, _ in rows]

    assert candidates(("world", "private")) == [b.id, a.id]  # newest first
    assert candidates(("world",)) == [a.id]
    assert candidates(("world", "private"), REMOTE) == [a.id]


def test_mnemo_reads_apply_tenant_owner_and_lifecycle(store: Store) -> None:
    mine = fact(store, "my private tea note", 1, agent_id="a1", scope="private",
                visibility="private", memory_type="episodic", tags=("t",))
    public = fact(store, "public tea note", 2, agent_id="a2", scope="public", importance=0.9)
    shared = fact(store, "shared tea note", 3, agent_id="a2", scope="shared",
                  visibility="private")
    other_org = fact(store, "acme tea note", 4, agent_id="a1", scope="public", org_id="acme")
    deleted = fact(store, "deleted tea note", 5, agent_id="a1", scope="public")
    with store.transaction():
        store.mark_memory_deleted(deleted.id, ts(6), "soft_delete")
    every = [mine.id, public.id, shared.id, other_org.id, deleted.id]

    def visible(reader: str, **kwargs: object) -> set[int]:
        filt = MemoryFilter(source_id="default", reader=reader, now=ts(10), **kwargs)  # type: ignore[arg-type]
        return {m.id for m in store.visible_memories(filt, every)}

    assert visible("a1") == {mine.id, public.id}
    assert visible("a2") == {public.id, shared.id}
    assert visible("a3") == {public.id}
    assert visible("a1", org_id="acme") == {other_org.id}
    assert visible("a1", as_of=ts(5)) == {mine.id, public.id, deleted.id}
    assert visible("a1", memory_type="episodic") == {mine.id}
    assert visible("a1", min_importance=0.8) == {public.id}
    assert visible("a1", tags=("t",)) == {mine.id}
    with store.transaction():
        store.upsert_acl(acl_id="acl", memory_id=shared.id, grantee="a3",
                               permission="read", granted_by="a2", now=ts(1), expires_at=None)
    assert visible("a3") == {public.id, shared.id}

    filt = MemoryFilter(source_id="default", reader="a1", now=ts(10))
    assert [m.id for m in store.memories_containing(filt, "TEA NOTE", 10)] == [public.id, mine.id]
    assert [m.id for m in store.memories_containing(filt, "tea", 1)] == [public.id]
    found = store.memories_matching_terms(filt, ["private", "nothing"], 10)
    assert [m.id for m in found] == [mine.id]
    assert store.memories_matching_terms(filt, [], 10) == []
    assert store.visible_memories(filt, []) == []

"""Memories (facts and gRPC-shaped rows) through FactService and the store."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.audit import memory_hash
from brainkeep.core.clock import Clock, format_ts
from brainkeep.core.context import LOCAL, STDIO
from brainkeep.core.memory.facts import MAX_FACT_CHARS, RememberResult, normalize_fact
from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.errors import InvalidInput, NotFound, ProvenanceRequired


class StepClock:
    """Starts at a fixed instant and moves one second per reading."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def steps() -> StepClock:
    return StepClock()


@pytest.fixture
def brain(home: Path, steps: StepClock) -> Iterator[Brain]:
    opened = open_brain(load_settings(home, env={}), clock=Clock(steps))
    try:
        yield opened
    finally:
        opened.close()


def remember(brain: Brain, text: str, **kw: Any) -> RememberResult:
    return brain.facts.remember(text, "test suite", LOCAL, **kw)


def test_insert_and_get_by_int_id_and_uuid(brain: Brain) -> None:
    result = brain.facts.remember(
        "Alice prefers email", "chat 2026-03-01", LOCAL, entity="people/alice", kind="preference"
    )
    memory = result.memory
    assert result.status == "inserted"
    assert memory.id == 1 and memory.fact_id == "1"
    assert uuid.UUID(memory.uuid).version == 7
    assert (memory.text, memory.kind, memory.entity_slug) == (
        "Alice prefers email",
        "preference",
        "people/alice",
    )
    assert memory.provenance == "chat 2026-03-01"
    assert memory.origin == "cli"
    assert memory.content_hash == memory_hash(memory.text, memory.agent_id, memory.created_at)
    assert brain.facts.find("1", LOCAL) == memory
    assert brain.facts.find(memory.uuid, LOCAL) == memory
    assert brain.facts.find(memory.uuid.upper(), LOCAL) == memory
    assert brain.store.get_memory_by_uuid(memory.uuid) == memory
    for missing in ("2", str(uuid.uuid4()), "people/alice", ""):
        with pytest.raises(NotFound):
            brain.facts.find(missing, LOCAL)


def test_entity_resolves_to_an_existing_page(brain: Brain) -> None:
    brain.pages.put_page("people/alice-example", "---\ntitle: Alice Example\naliases: [Ali]\n---\n")
    by_alias = remember(brain, "Ali likes tea", entity="ali")
    by_title = remember(brain, "Alice likes cake", entity="Alice Example")
    new_name = remember(brain, "Bob likes pie", entity="Bob Example")
    assert by_alias.memory.entity_slug == "people/alice-example"
    assert by_title.memory.entity_slug == "people/alice-example"
    assert new_name.memory.entity_slug == "bob-example"


def test_list_by_entity_active_only_or_all(brain: Brain) -> None:
    first = remember(brain, "fact one", entity="people/alice").memory
    remember(brain, "fact two", entity="people/alice")
    remember(brain, "other entity", entity="people/bob")
    brain.facts.forget(first.fact_id, LOCAL, reason="wrong")

    active = brain.facts.list_facts(LOCAL, entity="people/alice")
    every = brain.facts.list_facts(LOCAL, entity="people/alice", include_expired=True)
    assert [m.text for m in active] == ["fact two"]
    assert [m.text for m in every] == ["fact two", "fact one"]  # newest first


def test_list_since_composes_with_entity(brain: Brain, steps: StepClock) -> None:
    remember(brain, "old alice", entity="people/alice")
    cutoff = format_ts(steps.now + timedelta(milliseconds=500))
    alice = remember(brain, "new alice", entity="people/alice").memory
    remember(brain, "new bob", entity="people/bob")
    at = brain.facts.list_facts(LOCAL, since=alice.created_at)
    assert [m.text for m in at] == ["new bob", "new alice"]  # since is inclusive
    assert [m.text for m in brain.facts.list_facts(LOCAL, since=cutoff)] == ["new bob", "new alice"]
    assert [m.text for m in brain.facts.list_facts(LOCAL, since=cutoff, entity="people/alice")] == [
        "new alice"
    ]


def test_expire_with_reason_keeps_row_and_logs(brain: Brain) -> None:
    memory = remember(brain, "to forget").memory
    before = brain.store.counts()
    result = brain.facts.forget(memory.uuid, LOCAL, reason="user asked")
    assert result.expired and result.reason == "user asked"
    row = brain.store.get_memory(memory.id)
    assert row is not None
    assert row.text == "to forget" and row.expired_reason == "user asked" and row.expired_at
    after = brain.store.counts()
    assert after["memories"] == before["memories"] == 1
    assert after["memories_active"] == 0
    assert after["events"] == before["events"] + 1
    last = brain.store.events_for("memory", memory.uuid)[-1]
    assert (last.kind, last.payload["reason"]) == ("memory.expire", "user asked")

    again = brain.facts.forget(memory.fact_id, LOCAL)
    assert not again.expired
    assert brain.store.counts()["events"] == after["events"]  # idempotent, no new event


def test_exact_duplicate_answers_duplicate(brain: Brain) -> None:
    first = remember(brain, "Alice prefers email.", entity="people/alice").memory
    dup = remember(brain, "  alice PREFERS e-mail ", entity="people/alice")
    assert normalize_fact("Alice prefers email.") != normalize_fact("alice prefers e-mail")
    assert dup.status == "inserted"  # e-mail vs email differ after normalization
    # Only whitespace and case fold (issue 10 #10): punctuation is meaning.
    again = remember(brain, "ALICE  prefers email.", entity="people/alice")
    assert again.status == "duplicate"
    assert again.memory.id == first.id
    other_entity = remember(brain, "Alice prefers email.", entity="people/bob")
    assert other_entity.status == "inserted"
    assert brain.store.counts()["memories"] == 3


def test_duplicate_of_expired_fact_is_inserted_again(brain: Brain) -> None:
    first = remember(brain, "temporary").memory
    brain.facts.forget(first.fact_id, LOCAL)
    assert remember(brain, "temporary").status == "inserted"


def test_ttl_in_the_past_hides_the_fact(brain: Brain) -> None:
    past = remember(brain, "stale", ttl="2020-01-01T00:00:00Z", entity="people/a")
    future = remember(brain, "fresh", ttl="30d", entity="people/a")
    assert past.memory.valid_until == "2020-01-01T00:00:00.000000Z"
    assert (future.memory.valid_until or "") > brain.clock.now_ts()
    assert [m.text for m in brain.facts.list_facts(LOCAL, entity="people/a")] == ["fresh"]
    assert not past.memory.is_active(brain.clock.now_ts())
    shown = brain.facts.list_facts(LOCAL, entity="people/a", include_expired=True)
    assert {m.text for m in shown} == {"stale", "fresh"}
    with pytest.raises(InvalidInput):
        remember(brain, "bad ttl", ttl="P30D")


def test_supersede_link_is_set_and_logged(brain: Brain) -> None:
    old = remember(brain, "Alice lives in Paris", entity="people/alice").memory
    new = remember(brain, "Alice lives in Lyon", entity="people/alice").memory
    with brain.store.transaction():
        brain.facts.expire(old, brain.clock.now_ts(), "superseded", superseded_by=new.id)
    row = brain.store.get_memory(old.id)
    assert row is not None
    assert (row.superseded_by, row.expired_reason) == (new.id, "superseded")
    assert brain.store.events_for("memory", old.uuid)[-1].payload["superseded_by"] == new.id


def test_grpc_fields_round_trip_and_chain_per_thread(brain: Brain) -> None:
    def insert(text: str, thread: str) -> Memory:
        draft = MemoryDraft(
            text=text,
            origin="grpc",
            agent_id="agent-7",
            org_id="org-1",
            thread_id=thread,
            memory_type="episodic",
            scope="private",
            visibility="private",
            importance=0.9,
            tags=("billing", "q3"),
            metadata={"k": [1, 2]},
            source_type="tool",
        )
        with brain.store.transaction():
            return brain.facts.insert(
                draft, normalize_fact(text), brain.clock.now_ts(), actor="agent-7"
            )

    a1 = insert("step one", "t1")
    b1 = insert("other thread", "t2")
    a2 = insert("step two", "t1")
    assert a1.prev_hash is None and b1.prev_hash is None
    assert a2.prev_hash == a1.content_hash
    got = brain.store.get_memory(a2.id)
    assert got is not None
    assert (got.agent_id, got.org_id, got.thread_id, got.scope, got.memory_type) == (
        "agent-7",
        "org-1",
        "t1",
        "private",
        "episodic",
    )
    assert (got.importance, got.tags, got.metadata, got.source_type) == (
        0.9,
        ("billing", "q3"),
        {"k": [1, 2]},
        "tool",
    )
    assert got.content_hash == memory_hash("step two", "agent-7", got.created_at)


def test_private_fact_hidden_from_remote_caller(brain: Brain) -> None:
    secret = remember(brain, "secret", visibility="private", entity="people/a").memory
    remember(brain, "public", entity="people/a")
    assert [m.text for m in brain.facts.list_facts(STDIO, entity="people/a")] == ["public"]
    assert len(brain.facts.list_facts(LOCAL, entity="people/a")) == 2
    with pytest.raises(NotFound):
        brain.facts.find(secret.fact_id, STDIO)
    with pytest.raises(NotFound):
        brain.facts.forget(secret.fact_id, STDIO)


@pytest.mark.parametrize(
    ("fact", "provenance", "kw", "error"),
    [
        ("", "p", {}, InvalidInput),
        ("   \n ", "p", {}, InvalidInput),
        ("x" * (MAX_FACT_CHARS + 1), "p", {}, InvalidInput),
        ("ok", None, {}, ProvenanceRequired),
        ("ok", "  ", {}, ProvenanceRequired),
        ("ok", "p" * 501, {}, InvalidInput),  # too long is invalid_params, as the reference
        ("ok", "p", {"kind": "rumor"}, InvalidInput),
        ("ok", "p", {"visibility": "team"}, InvalidInput),
        ("ok", "p", {"ttl": "0d"}, InvalidInput),
        ("lone \udcff surrogate", "p", {}, InvalidInput),
        ("ok", "lone \ud800", {}, InvalidInput),
    ],
    ids=[
        "empty",
        "blank",
        "too-long",
        "no-provenance",
        "blank-provenance",
        "provenance-too-long",
        "unknown-kind",
        "unknown-visibility",
        "zero-ttl",
        "surrogate-fact",
        "surrogate-provenance",
    ],
)
def test_bad_fact_writes_nothing(
    brain: Brain, fact: str, provenance: str | None, kw: dict[str, str], error: type[Exception]
) -> None:
    with pytest.raises(error) as raised:
        brain.facts.remember(fact, provenance, LOCAL, **kw)  # type: ignore[arg-type]
    assert raised.value.code == error.code  # type: ignore[attr-defined]
    assert brain.store.counts()["memories"] == 0
    assert brain.store.counts()["events"] == 0


def test_fact_at_the_length_limit_is_accepted(brain: Brain) -> None:
    assert remember(brain, "x" * MAX_FACT_CHARS).status == "inserted"


@pytest.mark.parametrize("limit", [0, 101])
def test_list_limit_bounds(brain: Brain, limit: int) -> None:
    with pytest.raises(InvalidInput):
        brain.facts.list_facts(LOCAL, limit=limit)

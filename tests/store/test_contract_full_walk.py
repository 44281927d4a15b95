"""Contract: the lean scans of the full verify walk (store/*/full_walk.py), both engines.

An engine renders the exact text each hash covers (core/integrity_rows.py).
For rows written by the server that rendering must be byte for byte what
the canonical encoding gives, or the walk falls back to the slow exact rule
for every row; and the recorded hashes must be the ones the full-row scans
(``iter_memory_states``, ``iter_page_states``) find.
"""

from __future__ import annotations

import json
from pathlib import Path

from brainkeep.core.audit import (
    event_body,
    event_input,
    memory_input,
    memory_state,
    page_state,
    state_input,
)
from brainkeep.core.models import MemoryDraft, NewEvent
from brainkeep.core.ports.store import Store
from tests.store.contract import insert_memory, put_page, ts

# Everything the canonical encoding escapes, or deliberately does not.
AWKWARD = ('q"uote \\back\\slash\nnew\ttab\x01ctl\x1f\x7fdel é ü 漢字 \u2028 \U0001f600 '
           '{"a": 1, "b": [2]}')


def test_event_digests_render_the_hashed_text(store: Store) -> None:
    payloads: list[dict[str, object]] = [
        {"text": AWKWARD, "n": 12345678901234567890, "f": 0.1, "e": 1e-07, "neg": -3},
        {"nested": {"z": [1, None, True, False, "x, y: z"], "a": {}}, "list": []},
        {},
    ]
    with store.transaction():
        for i, payload in enumerate(payloads):
            store.append_event(NewEvent(f"test.{i}", "test", f"s{i}{AWKWARD}", payload,
                                        actor=AWKWARD), ts(i))
    digests = list(store.iter_event_digests())
    events = list(store.iter_events())
    assert [d.seq for d in digests] == [e.seq for e in events] == [1, 2, 3]
    for digest, event in zip(digests, events, strict=True):
        body = event_body(seq=event.seq, ts=event.ts, source_id=event.source_id,
                          kind=event.kind, subject_type=event.subject_type,
                          subject_id=event.subject_id, actor=event.actor, payload=event.payload)
        assert (digest.kind, digest.prev_hash, digest.hash) == (
            event.kind, event.prev_hash, event.hash)
        assert digest.hashed == event_input(event.prev_hash, body)
    assert [d.seq for d in store.iter_event_digests(after_seq=2)] == [3]


def test_memory_checks_render_both_hash_inputs(store: Store) -> None:
    a = insert_memory(store, MemoryDraft(text=AWKWARD, agent_id="a1", tags=("b", "a", "é")),
                      ts(1))
    b = insert_memory(store, MemoryDraft(text="two", agent_id="a1", thread_id="t",
                                         entity_slug="people/x", provenance=AWKWARD), ts(2))
    c = insert_memory(store, MemoryDraft(text="three", agent_id="a2", visibility="private"),
                      ts(3))
    with store.transaction():
        # A later event without the hash keys: the newest recorded ones are older.
        store.append_event(NewEvent("memory.touch", "memory", a.uuid, {}), ts(4))
    lean = list(store.iter_memory_checks(None, None))
    full = list(store.iter_memory_states(None, None))
    assert [r.uuid for r in lean] == [s.memory.uuid for s in full] == [a.uuid, b.uuid, c.uuid]
    for row, state in zip(lean, full, strict=True):
        m = state.memory
        assert row.content_input == memory_input(m.text, m.agent_id, m.created_at)
        assert row.state_input == state_input(memory_state(m))
        assert (row.recorded_content, row.recorded_state, row.last_seq) == (
            state.recorded_content, state.recorded_state, state.last_seq)
        assert (row.agent_id, row.thread_id, row.content_hash, row.prev_hash) == (
            m.agent_id, m.thread_id, m.content_hash, m.prev_hash)
        assert row.redacted_at is None and row.text_if_redacted is None
    assert lean[0].last_seq == 4 and lean[0].recorded_content == a.content_hash
    assert sorted(json.loads(lean[0].tags)) == ["a", "b", "é"]
    assert [r.uuid for r in store.iter_memory_checks("a1", "t")] == [b.uuid]
    assert [r.uuid for r in store.iter_memory_checks(None, None, created_before=ts(1))] == [
        a.uuid]
    assert [s.memory.uuid for s in store.iter_memory_states(None, None, uuids=[c.uuid])] == [
        c.uuid]


def test_page_checks_render_the_state_input(store: Store) -> None:
    page = put_page(store, "people/alice", f"# Alice\n\n{AWKWARD}\n")
    put_page(store, "secret/plan", "---\nvisibility: private\n---\n# Plan\n", ts(1))
    lean = list(store.iter_page_checks())
    full = list(store.iter_page_states())
    assert [p.id for p in lean] == [p.id for p in full] and lean[0].id == str(page.id)
    for row, state in zip(lean, full, strict=True):
        assert (row.slug, row.content, row.content_hash) == (
            state.slug, state.content.encode(), state.content_hash)
        assert row.state_input == state_input(page_state(
            source_id=state.source_id, slug=state.slug, visibility=state.visibility,
            deleted_at=state.deleted_at))
        assert (row.recorded_content, row.recorded_state, row.last_seq) == (
            state.recorded_content, state.recorded_state, state.last_seq)



def test_a_file_or_server_brain_can_be_reopened(store: Store) -> None:
    # The full walk may read it from a second thread or a child process.
    target = store.reopen_target()
    assert target is not None and (target.startswith("postgresql://") or Path(target).exists())

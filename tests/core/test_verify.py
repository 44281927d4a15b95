"""The hash-chained event log and `verify`, including edits behind the server's back."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from brainkeep.brain import Brain
from brainkeep.core.audit import GENESIS, canonical, event_body, event_hash
from brainkeep.core.context import LOCAL
from brainkeep.core.verify import verify_brain


@contextmanager
def raw_db(brain: Brain) -> Iterator[sqlite3.Connection]:
    """A second, independent connection: what a user with the sqlite3 shell would do."""
    conn = sqlite3.connect(brain.settings.db_path)
    try:
        with conn:
            yield conn
    finally:
        conn.close()


def populate(brain: Brain) -> None:
    for i in range(30):
        brain.pages.put_page(f"notes/n{i}", f"# Note {i}\n\nLinks [[notes/n{i + 1}]].\n")
    for i in range(0, 30, 3):
        brain.pages.put_page(f"notes/n{i}", f"# Note {i}\n\nRewritten.\n")
    brain.pages.delete_page("notes/n5", LOCAL)
    for i in range(40):
        brain.facts.remember(f"fact number {i}", "test", LOCAL, entity=f"notes/n{i % 7}")
    for i in range(1, 41, 4):
        brain.facts.forget(str(i), LOCAL, reason="cleanup")


def test_chain_valid_after_many_writes(brain: Brain) -> None:
    populate(brain)
    report = verify_brain(brain.store)
    assert report.valid, report.first_broken
    assert report.events_checked == brain.store.counts()["events"] == 30 + 10 + 1 + 40 + 10
    assert report.pages_checked == 30
    assert report.memories_checked == 40
    data = report.to_dict()
    assert data["checked"] == report.events_checked and data["first_broken"] is None


def test_empty_brain_is_valid(brain: Brain) -> None:
    report = verify_brain(brain.store)
    assert (report.valid, report.events_checked) == (True, 0)


def test_events_are_chained_with_the_documented_encoding(brain: Brain) -> None:
    populate(brain)
    prev = GENESIS
    for event in brain.store.iter_events(batch=7):  # batching must not skip or repeat
        body = event_body(
            seq=event.seq,
            ts=event.ts,
            source_id=event.source_id,
            kind=event.kind,
            subject_type=event.subject_type,
            subject_id=event.subject_id,
            actor=event.actor,
            payload=event.payload,
        )
        assert event.prev_hash == prev
        assert event.hash == event_hash(prev, body)
        prev = event.hash
    assert canonical({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()


def test_edited_memory_text_is_named(brain: Brain) -> None:
    populate(brain)
    target = brain.store.get_memory(17)
    assert target is not None
    with raw_db(brain) as conn:
        conn.execute("UPDATE memories SET text = 'tampered' WHERE id = 17")
    report = verify_brain(brain.store)
    assert not report.valid
    assert report.first_broken is not None
    assert (report.first_broken.kind, report.first_broken.id) == ("memory", target.uuid)
    assert "text" in report.first_broken.reason


def test_memory_edited_with_a_matching_hash_still_fails(brain: Brain) -> None:
    from brainkeep.core.audit import memory_hash

    populate(brain)
    target = brain.store.get_memory(3)
    assert target is not None
    forged = memory_hash("tampered", target.agent_id, target.created_at)
    with raw_db(brain) as conn:
        conn.execute(
            "UPDATE memories SET text = 'tampered', content_hash = ? WHERE id = 3", (forged,)
        )
    report = verify_brain(brain.store)
    assert report.first_broken is not None
    assert (report.first_broken.kind, report.first_broken.id) == ("memory", target.uuid)
    assert "event log" in report.first_broken.reason


def test_edited_page_content_is_named_by_slug(brain: Brain) -> None:
    populate(brain)
    with raw_db(brain) as conn:
        conn.execute("UPDATE pages SET content = content || 'x' WHERE slug = 'notes/n12'")
    report = verify_brain(brain.store)
    assert not report.valid
    assert report.first_broken is not None
    assert (report.first_broken.kind, report.first_broken.slug) == ("page", "notes/n12")


def test_page_edited_with_a_matching_hash_still_fails(brain: Brain) -> None:
    import hashlib

    populate(brain)
    digest = hashlib.sha256(b"forged").hexdigest()
    with raw_db(brain) as conn:
        conn.execute(
            "UPDATE pages SET content = 'forged', content_hash = ? WHERE slug = 'notes/n5'",
            (digest,),
        )  # a soft-deleted page
    report = verify_brain(brain.store)
    assert report.first_broken is not None
    assert (report.first_broken.kind, report.first_broken.slug) == ("page", "notes/n5")
    assert "event log" in report.first_broken.reason


def test_edited_event_payload_is_named_by_seq(brain: Brain) -> None:
    populate(brain)
    with raw_db(brain) as conn:
        payload = json.loads(
            conn.execute("SELECT payload FROM events WHERE seq = 42").fetchone()[0]
        )
        payload["forged"] = True
        conn.execute("UPDATE events SET payload = ? WHERE seq = 42", (json.dumps(payload),))
    report = verify_brain(brain.store)
    assert report.first_broken is not None
    assert (report.first_broken.kind, report.first_broken.id) == ("event", "42")
    assert report.events_checked == 42


def test_removed_event_is_a_sequence_gap(brain: Brain) -> None:
    populate(brain)
    with raw_db(brain) as conn:
        conn.execute("DELETE FROM events WHERE seq = 10")
    report = verify_brain(brain.store)
    assert report.first_broken is not None
    assert (report.first_broken.kind, report.first_broken.id) == ("event", "11")
    assert "sequence gap" in report.first_broken.reason


def test_rehashed_forged_event_breaks_the_next_link(brain: Brain) -> None:
    populate(brain)
    with raw_db(brain) as conn:
        conn.execute("UPDATE events SET hash = ? WHERE seq = 20", ("f" * 64,))
    report = verify_brain(brain.store)
    assert report.first_broken is not None
    assert report.first_broken.id == "20"

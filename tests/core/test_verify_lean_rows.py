"""The full walk's lean rows decide nothing on their own (issue 21, item 9).

SQLite renders each hash input with its JSON functions (store/sqlite/
full_walk.py); the verifier accepts a row when the rendering hashes to the
recorded hash and otherwise asks the exact rule. These edits are the values
SQLite and Python judge differently (a text flag, an unsorted or repeated
tag list, a reformatted or reordered payload, a payload that is not JSON):
each verdict must be the exact rule's, so the lean path can neither hide a
break nor invent one.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from brainkeep.brain import Brain
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.verify import verify_brain
from brainkeep.store.sqlite import SQLiteStore
from tests.core.test_tamper_columns import sql
from tests.store.contract import put_page


@pytest.fixture
def uuid(brain: Brain) -> str:
    brain.pages.put_page("people/alice", "# Alice\n\nLikes tea.\n")
    first = brain.mnemo.remember(RememberInput(content="tagged note", agent_id="alice",
                                               tags=("b", "a"))).uuid
    brain.mnemo.remember(RememberInput(content="later note", agent_id="alice"))
    assert verify_brain(brain.store).valid
    return first


def reformat_payload(home: Path, seq: int, *, reorder: bool) -> None:
    conn = sqlite3.connect(home / "brain.db")
    try:
        with conn:
            (text,) = conn.execute("SELECT payload FROM events WHERE seq = ?", (seq,)).fetchone()
            payload = json.loads(text)
            if reorder:  # the same object, keys in reverse order
                rewritten = json.dumps(dict(reversed(list(payload.items()))))
            else:  # the same object, other whitespace
                rewritten = json.dumps(payload, indent=2, sort_keys=True)
            conn.execute("UPDATE events SET payload = ? WHERE seq = ?", (rewritten, seq))
    finally:
        conn.close()


# (case, statement, valid by the exact rule)
EDITS = [
    # Python's bool('yes') is True: the access state changed.
    ("quarantined_as_text", "UPDATE memories SET quarantined = 'yes' WHERE uuid = ?", False),
    # bool(0.0) is False: the same state, though SQLite's typeof differs.
    ("quarantined_as_real", "UPDATE memories SET quarantined = 0.0 WHERE uuid = ?", True),
    # Tags count as a sorted set: order and repeats change nothing.
    ("tags_reordered", "UPDATE memories SET tags = '[\"b\",\"a\",\"b\"]' WHERE uuid = ?", True),
    ("tags_changed", "UPDATE memories SET tags = '[\"a\",\"c\"]' WHERE uuid = ?", False),
    ("tags_not_strings", "UPDATE memories SET tags = '[1]' WHERE uuid = ?", False),
]


@pytest.mark.parametrize(("case", "statement", "valid"), EDITS, ids=[c for c, _, _ in EDITS])
def test_an_edit_gets_the_exact_rules_verdict(brain: Brain, home: Path, uuid: str, case: str,
                                              statement: str, valid: bool) -> None:
    sql(home, statement, (uuid,))
    report = verify_brain(brain.store)
    assert report.valid is valid, case
    if not valid:
        assert report.first_broken is not None and report.first_broken.id == uuid


@pytest.mark.parametrize("reorder", [False, True], ids=["whitespace", "key_order"])
def test_a_payload_stored_in_another_layout_still_verifies(brain: Brain, home: Path, uuid: str,
                                                           reorder: bool) -> None:
    reformat_payload(home, 2, reorder=reorder)  # what it parses to is what was hashed
    assert verify_brain(brain.store).valid


def test_a_payload_that_is_not_json_names_its_event(brain: Brain, home: Path, uuid: str) -> None:
    sql(home, "UPDATE events SET payload = 'not json' WHERE seq = 3")
    with pytest.raises(Exception, match="JSON|Expecting value"):  # as before: unparseable
        verify_brain(brain.store)
    sql(home, "UPDATE events SET payload = '{\"id\": 1}' WHERE seq = 3")
    report = verify_brain(brain.store)
    assert not report.valid and report.first_broken is not None
    assert (report.first_broken.kind, report.first_broken.id) == ("event", "3")


def test_a_memory_brain_walks_on_one_thread() -> None:
    # Another thread's connection to ":memory:" is another, empty database.
    store = SQLiteStore(":memory:")
    try:
        assert store.reopen_target() is None
        put_page(store, "people/alice", "# Alice\n")
        report = verify_brain(store)
        assert (report.valid, report.events_checked, report.pages_checked) == (True, 1, 1)
    finally:
        store.close()

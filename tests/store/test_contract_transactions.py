"""Contract: ``transaction()`` commits, rolls back, nests as savepoints; methods never commit.

Visibility to "another process" is checked through a second store instance
on the same brain (its own connections), which sees only committed data.
"""

from __future__ import annotations

import pytest

from brainkeep.core.models import MemoryDraft, SessionCursor
from brainkeep.core.ports.store import Store
from brainkeep.core.token_models import ApiToken
from tests.store.conftest import Engine
from tests.store.contract import (
    NOW,
    chain_errors,
    insert_memory,
    new_event,
    page_draft,
    ts,
)


class Boom(Exception):
    pass


def subjects(store: Store) -> list[str]:
    return [e.subject_id for e in store.iter_events()]


def test_commit_is_visible_to_another_instance(engine: Engine, store: Store) -> None:
    other = engine.open()
    with store.transaction():
        store.append_event(new_event(1), NOW)
        store.set_meta("k", "v")
        assert subjects(store) == ["1"]  # a transaction reads its own writes
    assert subjects(other) == ["1"]
    assert other.get_meta("k") == "v"


def test_exception_rolls_back_and_propagates(engine: Engine, store: Store) -> None:
    other = engine.open()
    with pytest.raises(Boom), store.transaction():
        store.append_event(new_event(1), NOW)
        store.set_meta("k", "v")
        raise Boom
    for view in (store, other):
        assert subjects(view) == []
        assert view.get_meta("k") is None
    # The store is usable afterwards: no half-open transaction is left behind.
    assert not store.in_transaction()
    with store.transaction():
        store.append_event(new_event(2), NOW)
    assert subjects(other) == ["2"]


def test_in_transaction_follows_the_block(store: Store) -> None:
    assert store.in_transaction() is False
    with store.transaction():
        assert store.in_transaction() is True
        with store.transaction():
            assert store.in_transaction() is True
        assert store.in_transaction() is True
    assert store.in_transaction() is False


def test_nested_failure_rolls_back_only_the_inner_part(
    engine: Engine, store: Store
) -> None:
    with store.transaction():
        store.append_event(new_event(1), NOW)
        store.set_meta("outer", "kept")
        with pytest.raises(Boom), store.transaction():
            store.append_event(new_event(2), NOW)
            store.set_meta("inner", "lost")
            raise Boom
        assert store.in_transaction()  # the outer transaction is still open
        store.append_event(new_event(3), NOW)
    other = engine.open()
    assert subjects(other) == ["1", "3"]
    assert (other.get_meta("outer"), other.get_meta("inner")) == ("kept", None)
    assert chain_errors(list(other.iter_events())) == []  # seq 1, 2: no hole


def test_nested_success_commits_only_with_the_outer_block(
    engine: Engine, store: Store
) -> None:
    other = engine.open()
    with pytest.raises(Boom), store.transaction():
        with store.transaction():
            store.append_event(new_event(1), NOW)
        assert subjects(other) == []  # releasing a savepoint is not a commit
        raise Boom
    assert subjects(store) == subjects(other) == []


def test_deeper_nesting_unwinds_level_by_level(store: Store) -> None:
    with store.transaction():
        store.append_event(new_event(1), NOW)
        with store.transaction():
            store.append_event(new_event(2), NOW)
            with pytest.raises(Boom), store.transaction():
                store.append_event(new_event(3), NOW)
                raise Boom
            store.append_event(new_event(4), NOW)
        with pytest.raises(Boom), store.transaction():
            store.append_event(new_event(5), NOW)
            with store.transaction():
                store.append_event(new_event(6), NOW)
            raise Boom
    assert subjects(store) == ["1", "2", "4"]
    assert chain_errors(list(store.iter_events())) == []


def test_methods_never_commit_on_their_own(engine: Engine, store: Store) -> None:
    """Writes of every repository stay invisible to another instance until commit,
    and vanish on rollback."""
    other = engine.open()
    with pytest.raises(Boom), store.transaction():
        store.set_meta("k", "v")
        page = store.save_page(page_draft("notes/a", "# A\n\n[[notes/b]]\n"), NOW, existing=None)
        store.append_event(new_event(1), NOW)
        store.insert_token(ApiToken("t1", "laptop", "hash", ("read",), NOW))
        store.put_session_cursor(SessionCursor("default", "c", "s", NOW, updated_at=NOW))
        memory = insert_memory(store, MemoryDraft(text="a fact", agent_id="a1"), NOW)
        # Each write is visible inside the transaction ...
        assert store.get_page("default", "notes/a") == page
        assert store.get_memory(memory.id) == memory
        # ... and none of them outside it while it is open.
        assert other.get_meta("k") is None
        assert other.get_page("default", "notes/a") is None
        assert other.links_to("default", "notes/b") == []
        assert list(other.iter_events()) == []
        assert other.get_token("t1") is None
        assert other.get_session_cursor("default", "c", "s") is None
        assert other.get_memory_by_uuid(memory.uuid) is None
        raise Boom
    for view in (store, other):
        assert view.get_meta("k") is None
        assert view.get_page("default", "notes/a", include_deleted=True) is None
        assert list(view.iter_events()) == []
        assert view.get_token("t1") is None
        assert view.get_session_cursor("default", "c", "s") is None
        assert view.get_memory_by_uuid(memory.uuid) is None
        assert view.memory_chain_rows("a1", None) == []


def test_seq_stays_gap_free_after_a_rolled_back_append(
    engine: Engine, store: Store
) -> None:
    with store.transaction():
        store.append_event(new_event(1), ts(1))
    with pytest.raises(Boom), store.transaction():
        lost = store.append_event(new_event(2), ts(2))
        assert lost.seq == 2
        raise Boom
    with store.transaction():
        third = store.append_event(new_event(3), ts(3))
    assert third.seq == 2  # the rolled-back seq is reused, not skipped
    events = list(engine.open().iter_events())
    assert [(e.seq, e.subject_id) for e in events] == [(1, "1"), (2, "3")]
    assert events[1].prev_hash == events[0].hash
    assert chain_errors(events) == []

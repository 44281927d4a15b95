"""Contract: delta session cursors and the seq-keyed change streams behind them."""

from __future__ import annotations

from brainkeep.core.models import NewEvent, SessionCursor
from brainkeep.core.ports.store import Store
from tests.store.contract import PRIVATE_PAGE, new_event, put_page, ts


def cursor(client: str, session: str, updated: float, *, page_seq: int = 0,
           fact_seq: int = 0, standing: tuple[str, ...] = ()) -> SessionCursor:
    return SessionCursor(source_id="default", client_id=client, session_id=session,
                         last_wake_at=ts(updated), page_seq=page_seq, fact_seq=fact_seq,
                         standing_entities=standing, updated_at=ts(updated))


def test_put_and_get_session_cursor_upserts(store: Store) -> None:
    first = cursor("c1", "s1", 1, page_seq=4, fact_seq=9,
                   standing=("people/a", "companies/b"))
    with store.transaction():
        store.put_session_cursor(first)
    assert store.get_session_cursor("default", "c1", "s1") == first
    second = cursor("c1", "s1", 2, page_seq=5)
    with store.transaction():
        store.put_session_cursor(second)  # last writer wins
    assert store.get_session_cursor("default", "c1", "s1") == second
    assert store.get_session_cursor("default", "c1", "other") is None
    assert store.get_session_cursor("other-source", "c1", "s1") is None


def test_gc_session_cursors_drops_idle_and_trims_per_client(store: Store) -> None:
    with store.transaction():
        store.put_session_cursor(cursor("c1", "old", 1))
        for n in range(5):
            store.put_session_cursor(cursor("c1", f"s{n}", 10 + n))
        store.put_session_cursor(cursor("c2", "only", 10))
    with store.transaction():
        removed = store.gc_session_cursors(ts(5), keep_per_client=2)
    assert removed == 1 + 3
    kept = [s for s in ("old", "s0", "s1", "s2", "s3", "s4")
            if store.get_session_cursor("default", "c1", s) is not None]
    assert kept == ["s3", "s4"]  # the newest two of c1
    assert store.get_session_cursor("default", "c2", "only") is not None


def test_event_head_and_seq_before_ts(store: Store) -> None:
    assert store.event_head() == 0
    assert store.seq_before_ts(ts(0)) == 0
    with store.transaction():
        for n in (1, 2, 3):
            store.append_event(new_event(n), ts(10 * n))
    assert store.event_head() == 3
    assert store.seq_before_ts(ts(20)) == 1  # events stamped at or after ts(20) come later
    assert store.seq_before_ts(ts(15)) == 1
    assert store.seq_before_ts(ts(0)) == 0
    assert store.seq_before_ts(ts(99)) == 3  # nothing that late: resume at the head


def test_pages_changed_after_seq_by_newest_put(store: Store) -> None:
    a = put_page(store, "notes/a", "# A\n", ts(1))  # seq 1
    put_page(store, "notes/b", "# B\n", ts(2))  # seq 2
    put_page(store, "notes/secret", PRIVATE_PAGE, ts(3))  # seq 3
    put_page(store, "notes/a", "# A v2\n", ts(4))  # seq 4
    gone = put_page(store, "notes/gone", "# Gone\n", ts(5))  # seq 5
    with store.transaction():
        store.mark_page_deleted(gone.id, ts(6))
        store.append_event(NewEvent("page.delete", "page", str(gone.id), {}), ts(6))

    def changed(after: int, upto: int, private: bool = True, limit: int = 10
                ) -> list[tuple[int, str]]:
        rows = store.pages_changed_after_seq("default", after, upto_seq=upto,
                                             include_private=private, limit=limit)
        return [(seq, page.slug) for seq, page in rows]

    head = store.event_head()
    assert changed(0, head) == [(2, "notes/b"), (3, "notes/secret"), (4, "notes/a")]
    assert changed(0, head, private=False) == [(2, "notes/b"), (4, "notes/a")]
    assert changed(0, 3) == [(1, "notes/a"), (2, "notes/b"), (3, "notes/secret")]
    assert changed(2, head, limit=1) == [(3, "notes/secret")]
    assert changed(head, head) == []
    rows = store.pages_changed_after_seq("default", 3, upto_seq=head, include_private=True,
                                         limit=10)
    assert rows[0][1].id == a.id and rows[0][1].title == "A v2"
    assert store.pages_changed_after_seq("elsewhere", 0, upto_seq=head, include_private=True,
                                         limit=10) == []

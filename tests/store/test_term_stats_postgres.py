"""PostgreSQL's term counts: common words come from the planner's statistics, the rest are counted.

Counting a common word visits every row holding it, so a single-word term
that ``pg_stats`` lists at ``estimate_from`` rows or more is estimated
(its sampled fraction times the live row count). The tests lower the
threshold so a small table shows both paths, and add rows after ANALYZE
to tell an estimate (which scales with the table) from a count.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from brainkeep.store.postgres import PostgresStore
from brainkeep.store.postgres.term_stats import TermStats
from tests.pg_server import fresh_database
from tests.store.contract import put_page


@pytest.fixture
def pg() -> Iterator[PostgresStore]:
    store = PostgresStore(fresh_database(), pool_min=1, pool_max=2)
    # No ANALYZE but the test's own: the statistics must be the ones it made.
    store.db.execute("ALTER TABLE chunks SET (autovacuum_enabled = false)")
    try:
        yield store
    finally:
        store.close()


def exact(pg: PostgresStore, word: str) -> int:
    return int(pg.db.scalar("SELECT COUNT(*) FROM chunks WHERE tsv @@ "
                            "phraseto_tsquery('brainkeep', %s)", (word,)))


def chunk_rows(pg: PostgresStore) -> int:
    return int(pg.db.scalar("SELECT COUNT(*) FROM chunks WHERE tsv IS NOT NULL"))


def seed(pg: PostgresStore) -> None:
    for n in range(30):
        put_page(pg, f"bills/{n}", f"invoice number {n}")
    for n in range(10):
        put_page(pg, f"notes/{n}", f"a receipt for lunch {n}")
    put_page(pg, "roads/one", "the zebra_crossing by the school")


def test_without_statistics_every_term_is_counted(pg: PostgresStore) -> None:
    seed(pg)
    stats = TermStats(pg.db, estimate_from=5)
    assert stats.term_doc_counts("chunk", ["invoic", "receipt", "zebra"]) == {
        "invoic": exact(pg, "invoic"), "receipt": exact(pg, "receipt"), "zebra": 1,
    }
    assert exact(pg, "invoic") == 30


def test_a_common_word_is_estimated_and_the_rest_counted(
        pg: PostgresStore, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(pg)
    pg.db.execute("ANALYZE chunks")
    before = chunk_rows(pg)
    # Rows written after ANALYZE, none holding "invoice": an estimate scales
    # with the table (its fraction stays as sampled), a count does not.
    for n in range(40):
        put_page(pg, f"misc/{n}", f"unrelated words {n}")
    after = chunk_rows(pg)
    stats = TermStats(pg.db, estimate_from=20)
    counts = stats.term_doc_counts("chunk", ["invoic", "receipt", "zebra_crossing", "absent"])
    assert counts["invoic"] == round(30 / before * after) != 30  # estimated
    assert counts["receipt"] == 10  # under the threshold: counted
    assert counts["zebra_crossing"] == 1  # a phrase: counted
    assert counts["absent"] == 0
    # Once its lexemes are known, a common word costs no statement at all.
    stats._counts.clear()  # as after the counts' 30 s expiry
    ran: list[str] = []
    real_run = pg.db._run
    monkeypatch.setattr(pg.db, "_run", lambda conn, sql, params: (
        ran.append(sql), real_run(conn, sql, params))[1])
    assert stats.term_doc_counts("chunk", ["invoic"]) == {"invoic": counts["invoic"]}
    assert ran == []
    assert stats.term_doc_counts("chunk", ["receipt", "invoic"]) == {
        "receipt": 10, "invoic": counts["invoic"]}
    assert len(ran) == 1  # "receipt", counted
    # A capped count of a word estimated well above the cap is the cap.
    assert TermStats(pg.db, estimate_from=20).term_doc_counts("chunk", ["invoic"], cap=7) == {
        "invoic": 7,
    }
    # Near the cap the estimate does not decide: "invoice" is counted up to 40.
    assert TermStats(pg.db, estimate_from=20).term_doc_counts("chunk", ["invoic"], cap=40) == {
        "invoic": 30,
    }

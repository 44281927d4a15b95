"""Search parity details: accent folding and stemming (both engines), PostgreSQL's caches.

- Folding: SQLite's FTS5 folds documents with ``remove_diacritics``;
  PostgreSQL's ``brainkeep_fold`` (migration 0001) must fold exactly as
  core folds query terms (``core.slugs.strip_accents``), character by
  character over its whole table.
- Stemming: both engines stem (SQLite porter, PostgreSQL Snowball English
  without stopwords, each engine's migration 0011).
- Caches: counts the PostgreSQL search index keeps (vector counts, term
  document counts) never hide a row written after they were filled.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from typing import Any

import numpy as np
import psycopg
import pytest

from brainkeep.core.models import MemoryDraft
from brainkeep.core.ports.store import Store
from brainkeep.core.query import PageScope, query_terms
from brainkeep.core.retrieval import CHUNK, MEMORY, PAGE, FactFilter, NewEmbedding
from brainkeep.core.scope import ReadScope
from brainkeep.core.slugs import strip_accents
from brainkeep.errors import StoreError
from brainkeep.store.postgres import PostgresStore
from brainkeep.store.postgres.columns import MEMORY_FIELDS
from brainkeep.store.postgres.fold import FOLDED_RANGES, fold, fold_function_sql, fold_table
from brainkeep.store.postgres.keyword import keyword_plan
from brainkeep.store.sql.rows import memory_from_row
from tests.pg_server import fresh_database
from tests.store.conftest import Engine
from tests.store.contract import insert_memory, put_page, ts

ALL_PAGES = PageScope(include_private=True)
MODEL, DIM = "test-model", 3


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture(scope="module")
def pg() -> Iterator[PostgresStore]:
    store = PostgresStore(fresh_database(), pool_min=1, pool_max=3)
    try:
        yield store
    finally:
        store.close()


# -- accent folding ------------------------------------------------------------------


def test_the_migration_holds_the_rendered_fold_function() -> None:
    sql = (resources.files("brainkeep.store.postgres") / "migrations" /
           "0001_init.sql").read_text(encoding="utf-8")
    assert fold_function_sql() in sql
    assert sql.count("brainkeep_fold(") >= 5  # the function and every tsv column


def test_the_fold_table_is_core_folding() -> None:
    table = fold_table()
    assert table["ë"] == "e" and table["Ś"] == "S" and table["ĳ"] == "ij"
    assert table["\u0301"] == ""  # a decomposed accent is dropped
    for block in FOLDED_RANGES:
        for cp in block:
            assert fold(chr(cp)) == strip_accents(chr(cp)), hex(cp)


def test_the_server_folds_every_character_as_core_does(pg: PostgresStore) -> None:
    chars = [chr(cp) for block in FOLDED_RANGES for cp in block]
    rows = pg.db.all("SELECT c, brainkeep_fold(c) FROM unnest(%s::text[]) c", (chars,))
    mismatched = [(hex(ord(r[0])), r[1], strip_accents(r[0])) for r in rows
                  if r[1] != strip_accents(r[0])]
    assert len(rows) == len(chars) and mismatched == []
    text = "Zoë Ñúñez e\u0301te ĲSSEL plain"
    assert pg.db.scalar("SELECT brainkeep_fold(%s)", (text,)) == strip_accents(text)


def test_accented_text_matches_folded_queries(store: Store) -> None:
    page = put_page(store, "people/zoe", "# Zoë Ñúñez\n\nZoë présente le café à Łódź.\n")
    memory = insert_memory(store, MemoryDraft(text="Zoë prefers crème brûlée"), ts(1))
    index = store.search_index("default")
    for query in ("zoe nunez", "Zoë Ñúñez", "ZOE"):
        assert [h.id for h in index.keyword(PAGE, query_terms(query), ALL_PAGES, 5)] == [page.id]
    for query in ("cafe presente", "café Łódź", "Łodz"):  # Ł has no decomposition: kept
        hits = index.keyword(CHUNK, query_terms(query).every(), ALL_PAGES, 5)
        assert {h.page_id for h in hits} == {page.id}, query
    facts = FactFilter(now=ts(10), scope=ReadScope(trusted=True))
    for query in ("creme brulee", "crème brûlée"):
        hits = index.keyword(MEMORY, query_terms(query).every(), facts, 5)
        assert [h.id for h in hits] == [memory.id], query


# -- caches (both engines: the behaviour is the contract) ----------------------------


def test_a_term_first_seen_absent_matches_once_written(store: Store) -> None:
    index = store.search_index("default")
    budgeted = query_terms("kumquat harvest").any(row_budget=1000)
    assert index.keyword(CHUNK, budgeted, ALL_PAGES, 5) == []  # counts now cached (as 0)
    facts = FactFilter(now=ts(10), scope=ReadScope(trusted=True))
    assert index.keyword(MEMORY, budgeted, facts, 5) == []
    page = put_page(store, "notes/fruit", "# Fruit\n\nThe kumquat harvest starts in May.\n")
    memory = insert_memory(store, MemoryDraft(text="the kumquat tree is sour"), ts(1))
    assert {h.page_id for h in index.keyword(CHUNK, budgeted, ALL_PAGES, 5)} == {page.id}
    assert [h.id for h in index.keyword(MEMORY, budgeted, facts, 5)] == [memory.id]


def test_term_counts_outlive_one_search_index_call(store: Store) -> None:
    # Services ask for an index per call (entity resolution on every
    # remember): a reader made afresh each time counted every term again.
    first, second = store.search_index("default"), store.search_index("default")
    assert first.words is second.words  # type: ignore[attr-defined]
    assert store.search_index("other").words is not first.words  # type: ignore[attr-defined]
    budgeted = query_terms("kumquat").any(row_budget=1000)
    assert first.keyword(CHUNK, budgeted, ALL_PAGES, 5) == []
    page = put_page(store, "notes/fruit", "# Fruit\n\nA kumquat.\n")
    assert [h.page_id for h in store.search_index("default").keyword(
        CHUNK, budgeted, ALL_PAGES, 5)] == [page.id]


def test_vector_counts_follow_writes_of_any_instance(engine: Engine) -> None:
    store, other = engine.open(), engine.open()
    page = put_page(store, "notes/a", "# A\n\nfirst\n\n## Timeline\n- 2024-01-01: second\n")
    (c1, _), (c2, _) = store.page_chunk_texts(page.id)
    index = store.search_index("default", model=MODEL, dim=DIM)
    assert index.vector_count(CHUNK) == 0
    with store.transaction():
        store.put_embeddings([NewEmbedding(CHUNK, c1, "default", page.id, False, MODEL, DIM,
                                           "h1", unit(1, 0, 0).tobytes())])
    assert index.vector_count(CHUNK) == 1
    assert index.vector_count(CHUNK) == 1  # the cached answer
    with other.transaction():  # another process's write
        other.put_embeddings([NewEmbedding(CHUNK, c2, "default", page.id, False, MODEL, DIM,
                                           "h2", unit(0, 1, 0).tobytes())])
    assert index.vector_count(CHUNK) == 2
    assert [h.id for h in index.nearest(CHUNK, unit(0, 1, 0), ALL_PAGES, 1)] == [c2]
    memory = insert_memory(store, MemoryDraft(text="a fact"), ts(2))
    with pytest.raises(RuntimeError), store.transaction():
        assert store.put_embeddings([NewEmbedding(MEMORY, memory.id, "default", None, False,
                                                  MODEL, DIM, "hm", unit(0, 0, 1).tobytes())])
        raise RuntimeError("roll back")
    assert index.vector_count(CHUNK) == 2 and index.vector_count(MEMORY) == 0
    with other.transaction():
        other.mark_page_deleted(page.id, ts(5))  # drops the page's vectors (trigger/tombstones)
    assert index.vector_count(CHUNK) == 0


# -- PostgreSQL engine: session and read_only ----------------------------------------


def test_session_shares_one_connection_and_transactions_inside_it_work(
        pg: PostgresStore) -> None:
    db = pg.db
    with db.session():
        pids = {db.scalar("SELECT pg_backend_pid()") for _ in range(5)}
        assert len(pids) == 1
        with db.transaction():
            db.execute("INSERT INTO meta (key, value) VALUES ('bk.session', 'x') "
                       "ON CONFLICT (key) DO UPDATE SET value = 'x'")
        assert db.scalar("SELECT pg_backend_pid()") in pids and not db.in_transaction()
    assert pg.get_meta("bk.session") == "x"


def test_read_only_settings_end_with_the_block(pg: PostgresStore) -> None:
    db = pg.db
    with db.read_only({"work_mem": "'7MB'"}):
        assert db.scalar("SHOW work_mem") == "7MB"
        with pytest.raises(StoreError):
            with db.transaction():
                pass
    with db.session():
        assert db.scalar("SHOW work_mem") != "7MB"
    with db.transaction():
        with db.read_only({"work_mem": "'9MB'"}):
            assert db.scalar("SHOW work_mem") == "9MB"
        assert db.scalar("SHOW work_mem") != "9MB"
        db.execute("SELECT 1")  # the transaction is still usable


def test_read_only_refuses_writes(pg: PostgresStore) -> None:
    with pytest.raises(StoreError), pg.db.read_only():
        pg.db.execute("INSERT INTO meta (key, value) VALUES ('bk.ro', 'x')")
    assert pg.get_meta("bk.ro") is None


def test_memory_fields_are_what_the_row_mapper_reads(pg: PostgresStore) -> None:
    read: list[str] = []

    class Recording(dict[str, Any]):
        def __getitem__(self, key: str) -> Any:
            read.append(key)
            return super().__getitem__(key)

    memory = insert_memory(pg, MemoryDraft(text="columns check"), ts(1))
    row = pg.db.one(f"SELECT {', '.join(MEMORY_FIELDS)} FROM memories WHERE id = %s",
                    (memory.id,))
    assert row is not None
    values = [row[i] for i in range(len(MEMORY_FIELDS))]
    assert memory_from_row(Recording(zip(MEMORY_FIELDS, values, strict=True))) == memory
    assert sorted(read) == sorted(MEMORY_FIELDS)
    assert "tsv" not in MEMORY_FIELDS
    with psycopg.connect(pg.db.url) as conn:  # and every real column but tsv is listed
        cols = {r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'memories'")}
    assert set(MEMORY_FIELDS) <= cols


def test_words_match_by_stem_and_no_word_is_a_stopword(store: Store) -> None:
    # SQLite: FTS5 porter (migration 0011); PostgreSQL: Snowball English
    # without a stopword list (its 0011). Both engines, the same answers.
    page = put_page(store, "notes/art", "# Art\n\nShe painted the activity room.\n")
    memory = insert_memory(store, MemoryDraft(text="tea is not coffee"), ts(1))
    index = store.search_index("default")
    for query in ("painting", "activities", "paints"):
        assert {h.page_id for h in index.keyword(CHUNK, query_terms(query), ALL_PAGES, 5)} == {
            page.id}, query
    facts = FactFilter(now=ts(10), scope=ReadScope(trusted=True))
    negated = query_terms("not", keep_stopwords=True)
    assert [h.id for h in index.keyword(MEMORY, negated, facts, 5)] == [memory.id]


def test_the_newest_floor_is_placed_by_counted_terms_only() -> None:
    """A term no row held when counted cannot push old rows above the floor: one cached
    floor then serves every query that pairs the common term with a new word."""
    counts = {"billing": 5_000, "audit": 40}
    budgeted = keyword_plan(("zyxwv", "billing"), counts, budget=1_000)
    assert budgeted.terms == ("zyxwv", "billing") and budgeted.newest == 1_000
    assert budgeted.floor_terms == ("billing",)
    within = keyword_plan(("audit", "zyxwv"), counts, budget=1_000)
    assert within.newest is None and within.floor_terms == ()


def test_a_floor_ranks_the_newest_matches_and_new_words_still_match(pg: PostgresStore) -> None:
    for n in range(6):
        put_page(pg, f"notes/{n}", f"# Invoice {n}\n\ninvoice number {n}\n")
    index = pg.search_index("default")
    counts = index.words.counts.term_doc_counts("chunk", ["invoic"])
    plan = keyword_plan(("zyxwv", "invoic"), {"zyxwv": 0, **counts}, budget=2)
    newest = index.words.chunks(plan, include_private=True, limit=10)
    assert len(newest) == 2  # the two newest invoice chunks, not all six
    put_page(pg, "notes/new", "# Fresh\n\nzyxwv arrived\n")  # written after the count
    found = index.words.chunks(plan, include_private=True, limit=10)
    assert len(found) == 3

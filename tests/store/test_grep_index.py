"""Grep and exact recall through the trigram index (migration 0013), on both engines.

The oracle is the old full scan: the same rows the store's filters select,
kept when the engine's own old predicate holds (SQLite
``instr(lower(text), lower(needle))``, PostgreSQL ``strpos``), evaluated by
the engine itself, so case folding is whatever it was before the index.
Every needle must give exactly the oracle's rows, in the oracle's order.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.ports.store import Store
from brainkeep.core.scope import ReadScope
from brainkeep.store.sql.substring import MIN_INDEXED, SHORT_WINDOW
from brainkeep.store.sqlite import grep as sqlite_grep
from brainkeep.store.sqlite.engine import SQLiteEngine, _statements
from tests.store.conftest import Engine
from tests.store.contract import insert_memory, ts
from tests.store.engines import ENGINES

LOCAL = ReadScope(trusted=True)
REMOTE = ReadScope()
NOW = ts(100_000)
GREP_MIGRATION = 13

TEXTS = [
    "100% sure about the plan", "snake_case_name in the code", "O'Brien said \"hi\" twice",
    "Zoë Ramírez joined", "ÉCOLE normale", "école du soir", "İstanbul trip in May",
    "tea with Alice", "TEA time at five", "C# and F# notes", "a", "ab", "🎉 party on Friday",
    "back\\slash path", "new\nline text", "tab\there", "NEAR the AND gate OR not",
    "col:ab* ^prefix (paren)", "  spaced   out  ", "percent %% and under __ score",
]
NEEDLES = [
    "%", "_", "100%", "e_c", "'", '"hi"', "o'b", "zoë", "ZOË", "Zoë", "École", "école",
    "ÉCOLE", "istanbul", "İst", "tea", "TeA", "c#", "a", "ab", "🎉", "\\", "e\nl", "\t",
    "filler", "FILLER NOTE 1", "note 1099", "the", "xyz-none", '"', "**", "near", "AND",
    "OR", "*", "^", "col:ab*", "(paren)", "   ", "%%", "__", "NOTE 7", "é", "zz",
]


def old_scan(store: Store, engine: str, rows: list[Memory], needle: str, limit: int,
             *, fold_needle: bool = True) -> list[int]:
    """The rows the pre-index query kept, as each engine evaluated its predicate.

    The predicate runs on every row's text in one statement (a row per text,
    in order), not one round trip per row: the engine's own functions decide.
    """
    texts = [m.text for m in rows]
    db = store.db  # type: ignore[attr-defined]
    if engine == "sqlite":
        test = "instr(lower(value), lower(?))" if fold_needle else "instr(lower(value), ?)"
        hits = db.execute(f"SELECT {test} > 0 FROM json_each(?) ORDER BY key",
                          (needle, json.dumps(texts))).fetchall()
    else:
        test = ('strpos(lower(t COLLATE "C"), lower(%s))' if fold_needle
                else 'strpos(lower(t COLLATE "C"), %s)')
        hits = db.all(f"SELECT {test} > 0 FROM unnest(%s::text[]) WITH ORDINALITY AS u(t, n) "
                      "ORDER BY n", (needle, texts))
    assert len(hits) == len(rows)
    return [m.id for m, (hit,) in zip(rows, hits, strict=True) if hit][:limit]


def fill(store: Store) -> dict[str, Memory]:
    """The special texts, 1,100 filler rows (more than one index batch), and rows
    nobody but their owner, their tenant or nobody at all may read."""
    made: dict[str, Memory] = {}
    with store.transaction():
        for i in range(1100):
            # Every 97th row is written with an older timestamp than its id
            # suggests: order must come from created_at, never from ids.
            at = i if i % 97 else i - 500
            insert_memory(store, MemoryDraft(text=f"filler note {i} about the plan"), ts(at))
        for i, text in enumerate(TEXTS):
            made[text] = insert_memory(store, MemoryDraft(text=text), ts(2000 + i))
        made["private"] = insert_memory(store, MemoryDraft(
            text="private tea filler", visibility="private", scope="private", agent_id="a1"),
            ts(3000))
        made["acme"] = insert_memory(store, MemoryDraft(
            text="acme tea filler", scope="public", org_id="acme", agent_id="a1"), ts(3001))
        made["deleted"] = insert_memory(store, MemoryDraft(
            text="deleted tea filler", scope="public", agent_id="a1"), ts(3002))
        made["expired"] = insert_memory(store, MemoryDraft(
            text="expired tea filler"), ts(3003))
        store.mark_memory_deleted(made["deleted"].id, ts(3004), "soft_delete")
        store.expire_memory(made["expired"].id, ts(3005), "gone")
        # An edited text is re-indexed (redaction rewrites it).
        made["redacted"] = insert_memory(store, MemoryDraft(text="secret tea filler"), ts(3006))
        store.redact_memory(made["redacted"].id, ts(3007), "[redacted]")
    return made


def every_row(store: Store, scope: ReadScope, **kwargs: object) -> list[Memory]:
    return store.list_memories("default", now=NOW, scope=scope, limit=100_000, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("scope", [LOCAL, REMOTE], ids=["local", "remote"])
def test_grep_equals_the_old_scan(engine: Engine, scope: ReadScope) -> None:
    store = engine.open()
    made = fill(store)
    for include_expired in (False, True):
        rows = every_row(store, scope, include_expired=include_expired)
        for needle in NEEDLES:
            for limit in (1, 10, 50):
                got = [m.id for m in store.list_memories(
                    "default", now=NOW, scope=scope, include_expired=include_expired,
                    text_contains=needle, limit=limit)]
                assert got == old_scan(store, engine.name, rows, needle, limit), (
                    needle, limit, include_expired)
        found = {m.id for m in store.list_memories(
            "default", now=NOW, scope=scope, include_expired=include_expired,
            text_contains="filler", limit=10_000)}
        assert made["deleted"].id not in found and made["acme"].id not in found
        assert made["redacted"].id not in found  # its text is the placeholder now
        assert (made["expired"].id in found) == include_expired
        assert (made["private"].id in found) == scope.trusted


def test_grep_composes_with_the_other_filters(engine: Engine) -> None:
    store = engine.open()
    with store.transaction():
        for i in range(1200):
            insert_memory(store, MemoryDraft(
                text=f"the plan {i}", entity_slug=f"people/p{i % 3}", session_id=f"s{i % 2}",
                kind=("fact", "preference")[i % 2]), ts(i))
    for kwargs in ({"entity_slug": "people/p1"}, {"session_id": "s0"}, {"since": ts(1000)},
                   {"kinds": ("preference",)}, {"entity_slug": "people/p2", "since": ts(900)}):
        rows = every_row(store, LOCAL, **kwargs)
        for needle in ("plan 1", "PLAN 11", "the", "1", "99"):
            got = [m.id for m in store.list_memories(
                "default", now=NOW, scope=LOCAL, text_contains=needle, limit=20, **kwargs)]  # type: ignore[arg-type]
            assert got == old_scan(store, engine.name, rows, needle, 20), (kwargs, needle)


def test_exact_and_as_of_recall_equal_the_old_scan(engine: Engine) -> None:
    store = engine.open()
    made = fill(store)
    with store.transaction():
        for reader, org in (("a1", None), ("a2", None), ("a1", "acme")):
            insert_memory(store, MemoryDraft(text=f"tea owned by {reader}", agent_id=reader,
                                             scope="private", visibility="private",
                                             org_id=org), ts(4000))

    def scoped(filt: MemoryFilter) -> list[Memory]:
        return every_row(store, filt.read_scope)

    for reader, org, as_of in (("a1", None, None), ("a2", None, None), ("a1", "acme", None),
                               ("a1", None, ts(3003))):
        filt = MemoryFilter(source_id="default", reader=reader, now=NOW, org_id=org,
                            as_of=as_of)
        rows = scoped(filt)
        for needle in NEEDLES:
            got = [m.id for m in store.memories_containing(filt, needle, 10)]
            assert got == old_scan(store, engine.name, rows, needle, 10), (reader, org, needle)
        terms = ["tea", "zz", "filler"]
        got = [m.id for m in store.memories_matching_terms(filt, terms, 5000)]
        want = [m.id for m in rows if any(
            old_scan(store, engine.name, [m], t.lower(), 1, fold_needle=False) for t in terms)]
        assert got == want[:5000], (reader, org, as_of)
        # as_of is a point in time: the row deleted later is still readable then.
        assert (made["deleted"].id in got) == (as_of is not None)
        if as_of:
            found = store.memories_containing(filt, "deleted", 10)
            assert made["deleted"].id in {m.id for m in found}


def test_sqlite_short_needles_and_the_window_are_documented_constants() -> None:
    # The rule docs/search.md states ("Grep") is these numbers.
    assert (MIN_INDEXED, SHORT_WINDOW) == (3, 5_000)
    assert sqlite_grep.BATCH == 1_000


def _brain_at_0012_sqlite(target: str, rows: list[tuple[str, str]]) -> None:
    """A SQLite brain as migrations 1-12 left it, holding ``rows`` (text, created_at)."""
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.create_function("brainkeep_fact_key", 1, lambda text: text)
    try:
        with conn:
            conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                         "name TEXT NOT NULL, applied_at TEXT NOT NULL)")
            for version, name, sql in SQLiteEngine.available_migrations():
                if version >= GREP_MIGRATION:
                    break
                for statement in _statements(sql):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01')",
                             (version, name))
            conn.execute("INSERT OR IGNORE INTO sources (id, name, created_at) "
                         "VALUES ('default', 'default', '2026-01-01')")
            conn.executemany(
                "INSERT INTO memories (uuid, source_id, text, normalized_text, created_at, "
                "updated_at, content_hash) VALUES (?, 'default', ?, ?, ?, ?, 'h')",
                [(f"u{i}", text, text.lower(), at, at) for i, (text, at) in enumerate(rows)])
    finally:
        conn.close()


def _brain_at_0012_postgres(target: str, rows: list[tuple[str, str]]) -> None:
    """A PostgreSQL brain whose 0013 never ran, holding ``rows`` written before it."""
    store = ENGINES["postgres"].open(target)
    try:
        db = store.db  # type: ignore[attr-defined]
        with store.transaction():
            db.execute("DROP INDEX memories_grep")
            db.execute("DROP FUNCTION brainkeep_trigrams(text)")
            db.execute("DROP FUNCTION brainkeep_trigram_cover(text)")
            db.execute("DELETE FROM schema_migrations WHERE version = %s", (GREP_MIGRATION,))
        for text, at in rows:
            insert_memory(store, MemoryDraft(text=text), at)
    finally:
        store.close()


def test_migration_0013_indexes_rows_written_before_it(engine: Engine) -> None:
    """A brain at 0012 (its rows never indexed) is migrated and greps every old row."""
    rows = [(f"pre-index row {i} Zoë", ts(i)) for i in range(1500)]
    build = {"sqlite": _brain_at_0012_sqlite, "postgres": _brain_at_0012_postgres}
    build[engine.name](engine.target, rows)
    store = engine.open()  # opening migrates: 0013 runs and backfills
    every = every_row(store, LOCAL)
    assert len(every) == 1500
    for needle in ("row 1499", "PRE-INDEX ROW 7", "zoë", "row 12 ", "7", "nothing here"):
        got = [m.id for m in store.list_memories("default", now=NOW, scope=LOCAL,
                                                 text_contains=needle, limit=50)]
        assert got == old_scan(store, engine.name, every, needle, 50), needle
    assert len(store.list_memories("default", now=NOW, scope=LOCAL, text_contains="pre-index",
                                   limit=2000)) == 1500


def test_a_rare_needle_is_read_through_the_index(engine: Engine) -> None:
    """The query plan of an indexed needle names the trigram index (EXPLAIN)."""
    store = engine.open()
    with store.transaction():
        for i in range(3000):
            insert_memory(store, MemoryDraft(text=f"the plan for note {i}"), ts(i))
    db = store.db  # type: ignore[attr-defined]
    filt = MemoryFilter(source_id="default", reader="a1", now=NOW)
    if engine.name == "postgres":
        from brainkeep.store.postgres import grep as pg_grep
        from brainkeep.store.postgres.filters import memory_filter_sql as pg_filter

        db.execute("ANALYZE memories")
        where, params = pg_filter(filt)
        params.update(grep0="note 2999", grep_limit=10)
        sql = pg_grep.index_query(where, "(strpos(lower(m.text), lower(%(grep0)s)) > 0)",
                                  ["lower(%(grep0)s)"])
        plan = " ".join(r[0] for r in db.all("EXPLAIN " + sql, params))
        assert "memories_grep" in plan and "Seq Scan on memories" not in plan, plan
    else:
        plan = " ".join(str(tuple(r)) for r in db.all(
            "EXPLAIN QUERY PLAN SELECT rowid FROM memories_grep WHERE memories_grep MATCH ? "
            "LIMIT 1001", ('"note 2999"',)))
        assert "VIRTUAL TABLE INDEX" in plan, plan
    assert [m.text for m in store.memories_containing(filt, "NOTE 2999", 10)] == [
        "the plan for note 2999"]

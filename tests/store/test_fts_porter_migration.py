"""Migration 0011: an unstemmed brain's full-text tables are rebuilt with the porter stemmer."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from brainkeep.store.sqlite import SQLiteStore
from brainkeep.store.sqlite.engine import SQLiteEngine, _statements

TABLES = {"chunks_fts": "text", "pages_fts": "title, aliases", "memories_fts": "text"}


def porter_version() -> int:
    return next(v for v, name, _ in SQLiteEngine.available_migrations() if name == "fts_porter")


def brain_before_0011(db_path: Path) -> None:
    """A brain as migrations 1-10 left it (unstemmed tables), with indexed rows."""
    conn = sqlite3.connect(db_path)
    # 0009 calls the engine's fact-key function; no memory rows exist yet.
    conn.create_function("brainkeep_fact_key", 1, lambda text: text)
    try:
        with conn:
            conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                         "name TEXT NOT NULL, applied_at TEXT NOT NULL)")
            for version, name, sql in SQLiteEngine.available_migrations():
                if version >= porter_version():
                    break
                for statement in _statements(sql):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01')",
                             (version, name))
            conn.executemany("INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)", [
                (7, "She painted two canvases during the workshops."),
                (9, "Notes about running shoes."),
            ])
            conn.execute("INSERT INTO pages_fts (rowid, title, aliases) VALUES "
                         "(3, 'Studio days', 'Atelier | Painting studios')")
            conn.execute("INSERT INTO memories_fts (rowid, text) VALUES "
                         "(5, 'The children loved the camping activities.')")
    finally:
        conn.close()


def fts_rows(db_path: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(db_path)
    try:
        return {t: conn.execute(f"SELECT rowid, {c} FROM {t} ORDER BY rowid").fetchall()
                for t, c in TABLES.items()}
    finally:
        conn.close()


def matches(conn: sqlite3.Connection, table: str, word: str) -> list[int]:
    return [r[0] for r in conn.execute(
        f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid", (f'"{word}"',))]


def test_an_unstemmed_brain_is_rebuilt_stemmed_with_every_row(tmp_path: Path) -> None:
    db = tmp_path / "brain.db"
    brain_before_0011(db)
    before = fts_rows(db)
    conn = sqlite3.connect(db)
    try:
        assert matches(conn, "chunks_fts", "painting") == []  # unstemmed: no match
    finally:
        conn.close()
    store = SQLiteStore(db)  # opening migrates
    try:
        assert store.schema_version() >= porter_version()
    finally:
        store.close()
    assert fts_rows(db) == before  # same rowids, same text: nothing re-derived or lost
    conn = sqlite3.connect(db)
    try:
        for table in TABLES:
            (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?",
                                  (table,)).fetchone()
            assert "porter unicode61 remove_diacritics 2" in sql
        assert matches(conn, "chunks_fts", "painting") == [7]
        assert matches(conn, "chunks_fts", "run") == [9]
        assert matches(conn, "pages_fts", "studio") == [3]
        assert matches(conn, "memories_fts", "activity") == [5]
        # The vocabulary views are back, over the new tables, and list stems.
        vocab = {r[0] for r in conn.execute("SELECT term FROM chunks_fts_terms")}
        assert {"paint", "run", "workshop"} <= vocab and "painted" not in vocab
        assert conn.execute("SELECT doc FROM memories_fts_terms WHERE term = 'activ'"
                            ).fetchone() == (1,)
        assert conn.execute("SELECT doc FROM pages_fts_terms WHERE term = 'studio'"
                            ).fetchone() == (1,)
    finally:
        conn.close()

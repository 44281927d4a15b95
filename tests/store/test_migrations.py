"""Schema migrations: an old brain is migrated in place without losing a row."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from brainkeep.core.audit import memory_hash, page_hash
from brainkeep.core.context import LOCAL
from brainkeep.store import SQLiteStore
from brainkeep.store.sqlite.engine import SQLiteEngine, _statements

TS = "2025-01-02T03:04:05.000000Z"


def build_v1_brain(path: Path) -> None:
    """A brain as version 1 of the schema left it, written with sqlite3 by hand."""
    version, name, sql = SQLiteEngine.available_migrations()[0]
    assert (version, name) == (1, "init")
    conn = sqlite3.connect(path)
    try:
        with conn:
            conn.execute(
                "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                "name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_migrations VALUES (1, 'init', ?)", (TS,))
            conn.execute("INSERT INTO sources VALUES ('default', 'default', ?)", (TS,))
            content = "---\ntitle: Old Page\n---\nWritten at schema version 1.\n"
            conn.execute(
                "INSERT INTO pages (id, source_id, slug, slug_tail, title, title_norm, type, "
                "body, content, content_hash, created_at, updated_at) "
                "VALUES (1, 'default', 'notes/old', 'old', 'Old Page', 'old page', 'note', "
                "'Written at schema version 1.', ?, ?, ?, ?)",
                (content, page_hash(content), TS, TS),
            )
            conn.execute("INSERT INTO page_aliases VALUES (1, 'Oldie', 'oldie')")
            conn.execute(
                "INSERT INTO memories (id, uuid, source_id, text, normalized_text, entity_slug, "
                "provenance, created_at, updated_at, content_hash) VALUES "
                "(1, '01940000-0000-7000-8000-000000000001', 'default', 'Old fact', 'old fact', "
                "'notes/old', 'v1 era', ?, ?, ?)",
                (TS, TS, memory_hash("Old fact", "", TS)),
            )
    finally:
        conn.close()


def table_names(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()


def test_fresh_brain_is_at_the_latest_version(tmp_path: Path) -> None:
    latest = SQLiteEngine.available_migrations()[-1][0]
    versions = [v for v, _, _ in SQLiteEngine.available_migrations()]
    assert versions == list(range(1, latest + 1))  # append-only, no gaps
    store = SQLiteStore(tmp_path / "brain.db")
    try:
        assert store.schema_version() == latest
        assert store.get_meta("created_at") is not None
    finally:
        store.close()


def test_old_brain_migrates_in_place_keeping_rows(tmp_path: Path) -> None:
    db = tmp_path / "brain.db"
    build_v1_brain(db)
    assert "session_cursors" not in table_names(db)
    latest = SQLiteEngine.available_migrations()[-1][0]

    store = SQLiteStore(db)
    try:
        assert store.schema_version() == latest > 1
        page = store.get_page("default", "notes/old")
        assert page is not None
        assert (page.title, page.content_hash) == ("Old Page", page_hash(page.content))
        assert store.page_aliases(page.id) == ["Oldie"]
        memory = store.get_memory(1)
        assert memory is not None
        assert (memory.text, memory.entity_slug, memory.provenance) == (
            "Old fact",
            "notes/old",
            "v1 era",
        )
        assert store.counts()["pages"] == 1 and store.counts()["memories"] == 1
    finally:
        store.close()
    assert "session_cursors" in table_names(db)

    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
    finally:
        conn.close()
    assert [r[0] for r in rows] == list(range(1, latest + 1))


def test_migrated_brain_keeps_working(tmp_path: Path) -> None:
    from brainkeep.brain import open_brain
    from brainkeep.config import load_settings

    home = tmp_path / "home"
    home.mkdir()
    build_v1_brain(home / "brain.db")
    brain = open_brain(load_settings(home, env={}))
    try:
        brain.pages.put_page("notes/new", "Linked to [[notes/old]].")
        result = brain.facts.remember("New fact", "test", LOCAL, entity="Old Page")
        assert result.memory.entity_slug == "notes/old"
        assert [m.text for m in brain.facts.list_facts(LOCAL, entity="notes/old")] == [
            "New fact",
            "Old fact",
        ]
        assert [ln.from_slug for ln in brain.pages.backlinks("notes/old", LOCAL)] == ["notes/new"]
    finally:
        brain.close()


def test_opening_twice_is_a_no_op(tmp_path: Path) -> None:
    db = tmp_path / "brain.db"
    build_v1_brain(db)
    SQLiteStore(db).close()
    store = SQLiteStore(db)
    try:
        assert store.db.migrate() == []
        assert store.counts()["pages"] == 1
    finally:
        store.close()


def test_two_processes_migrate_an_old_brain_once(tmp_path: Path) -> None:
    db = tmp_path / "brain.db"
    build_v1_brain(db)
    script = (
        "import sys; from brainkeep.store import SQLiteStore; "
        "s = SQLiteStore(sys.argv[1]); print(s.schema_version()); s.close()"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=60) for p in procs]
    latest = SQLiteEngine.available_migrations()[-1][0]
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    assert [o.strip() for o, _ in outs] == [str(latest)] * 3
    conn = sqlite3.connect(db)
    try:
        count = conn.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0]
    finally:
        conn.close()
    assert count == latest

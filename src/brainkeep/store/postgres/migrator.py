"""Numbered migrations for PostgreSQL (the same ids as SQLite's), applied once.

Files are ``migrations/NNNN_name.sql``, one per SQLite migration with the
same number and name; a migration meaningless here (fts5vocab views, a key
recomputation that has no rows to touch) is a commented ``SELECT 1;``. Each
file runs whole (several statements in one simple-protocol call) inside its
own transaction, with its row in ``schema_migrations`` (the ledger SQLite
keeps too).

Two processes starting together never race: the whole run holds a session
advisory lock on a dedicated connection, and the ledger is re-read after the
lock is granted.

Optional extensions: a file whose first lines say ``-- requires-extension:
vector`` runs only if ``CREATE EXTENSION IF NOT EXISTS vector`` succeeds.
Otherwise it is skipped, NOT recorded in the ledger (so it applies on a
later start once the extension is installed), and listed in meta key
``postgres.skipped_migrations`` (a JSON list) for ``doctor`` and for the
search index to report ``search_degraded``. Pending migrations are found by
set difference with the ledger, not by ``version > max``, so a skipped one is
picked up even after later ones applied.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from typing import Any

import psycopg

log = logging.getLogger("brainkeep.store.postgres")

MIGRATE_LOCK_KEY = 0x6272_6B5F_6D69_6772  # "brk_migr"
SKIPPED_META_KEY = "postgres.skipped_migrations"
_REQUIRES = re.compile(r"^--\s*requires-extension:\s*(\w+)\s*$", re.MULTILINE)
# How to get pgvector, for the message of a skipped vector migration.
VECTOR_INSTALL_HINT = (
    "Install pgvector on the server (Debian/Ubuntu: `apt install postgresql-<major>-pgvector`; "
    "managed services: enable the `vector` extension), or run "
    "`CREATE EXTENSION vector;` as a superuser, then restart brainkeep. Until then keyword "
    "search works and semantic search reports search_degraded."
)


@dataclass(frozen=True)
class MigrationReport:
    """What one ``run_migrations`` call did."""

    applied: tuple[int, ...] = ()
    # version -> why it was skipped (a missing extension).
    skipped: dict[int, str] = field(default_factory=dict)


def available_migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) of every shipped PostgreSQL migration, in order."""
    folder = resources.files("brainkeep.store.postgres") / "migrations"
    found = []
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), name[5:-4], entry.read_text(encoding="utf-8")))
    return sorted(found)


def schema_version(conn: psycopg.Connection[Any]) -> int:
    """The newest applied migration on ``conn``'s database (0: never migrated)."""
    row = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()
    return int(row[0]) if row else 0


def run_migrations(
    conn: psycopg.Connection[Any], migrations: list[tuple[int, str, str]] | None = None
) -> MigrationReport:
    """Apply every pending migration on ``conn`` (an autocommit connection).

    ``migrations`` replaces the shipped list (tests of the runner itself).
    """
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATE_LOCK_KEY,))
    try:
        # The ledger cannot be created by a migration; the only DDL outside
        # migrations/*.sql, as on SQLite.
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
            "name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        done = {int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations")}
        applied: list[int] = []
        skipped: dict[int, str] = {}
        for version, name, sql in (available_migrations() if migrations is None else migrations):
            if version in done:
                continue
            missing = [ext for ext in _REQUIRES.findall(sql) if not _ensure_extension(conn, ext)]
            if missing:
                skipped[version] = f"extension {', '.join(missing)} unavailable"
                log.warning("migration %04d_%s skipped: %s. %s", version, name,
                            skipped[version], VECTOR_INSTALL_HINT)
                continue
            with conn.transaction():
                conn.execute(sql)  # no parameters: the whole script in one call
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) "
                    "VALUES (%s, %s, %s)",
                    (version, name, datetime.now(UTC).isoformat()),
                )
                if version == 1:
                    _seed(conn)
            applied.append(version)
        if to_regclass(conn, "meta"):
            _record_skipped(conn, skipped)
        return MigrationReport(tuple(applied), skipped)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATE_LOCK_KEY,))


def to_regclass(conn: psycopg.Connection[Any], name: str) -> bool:
    row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()
    return bool(row and row[0])


def _ensure_extension(conn: psycopg.Connection[Any], name: str) -> bool:
    """Create extension ``name`` if possible; False when the server cannot have it."""
    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = %s", (name,)).fetchone():
        return True
    if not conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = %s",
                        (name,)).fetchone():
        return False
    try:
        with conn.transaction():
            conn.execute(f'CREATE EXTENSION IF NOT EXISTS "{name}"')
    except psycopg.errors.InsufficientPrivilege as exc:  # a managed server may refuse it
        log.warning("CREATE EXTENSION %s was refused: %s", name, exc)
        return False
    return True


def _record_skipped(conn: psycopg.Connection[Any], skipped: dict[int, str]) -> None:
    still = {int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations")}
    pending = sorted(v for v in skipped if v not in still)
    if pending:
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (SKIPPED_META_KEY, json.dumps(pending)),
        )
    else:
        conn.execute("DELETE FROM meta WHERE key = %s", (SKIPPED_META_KEY,))


def _seed(conn: psycopg.Connection[Any]) -> None:
    now = datetime.now(UTC).isoformat()
    conn.execute(
        "INSERT INTO sources (id, name, created_at) VALUES ('default', 'default', %s) "
        "ON CONFLICT DO NOTHING",
        (now,),
    )
    conn.execute("INSERT INTO meta (key, value) VALUES ('created_at', %s) "
                 "ON CONFLICT DO NOTHING", (now,))

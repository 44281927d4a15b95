"""Which engine a test brain lives on, for the suites that run on both.

The root conftest's ``brain_engine`` fixture says "sqlite"; a folder whose
tests must hold on both engines (verbs, gRPC, conformance) overrides it
with one parametrized over ``ENGINES``, so each of its brain tests runs as
``test_x[sqlite]`` and ``test_x[postgres]``. A PostgreSQL brain is a home
folder whose config ``database.url`` names a fresh, already migrated
database on the session's server (tests/pg_server.py), so in-process
brains, the CLI and `brainkeep serve` subprocesses all open it the way a
user's would.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from brainkeep.config import load_settings, write_values

ENGINES = ("sqlite", "postgres")


def database_values(engine: str) -> dict[str, Any]:
    """Config values that put a new brain on ``engine`` (a fresh database for postgres)."""
    if engine == "sqlite":
        return {}
    if engine != "postgres":
        raise ValueError(f"unknown engine {engine!r}")
    from tests.pg_server import brain_database

    return {"database.url": brain_database()}


def _write(home: Path, values: dict[str, Any]) -> None:
    if values:  # SQLite without config: the home stays untouched (not even created)
        settings = load_settings(home, env={})
        write_values(settings, {**settings.values, **values})


@contextmanager
def engine_home(home: Path, engine: str) -> Iterator[Path]:
    """``home`` set up for a brain on ``engine`` for the length of a fixture.

    On PostgreSQL its config names a migrated database of its own, given back
    afterwards.

    Only the database made here is given back (reused by a later test, or
    dropped): never whatever URL the test itself wrote into the config.
    """
    values = database_values(engine)
    _write(home, values)
    try:
        yield home
    finally:
        if "database.url" in values:
            from tests.pg_server import recycle_database

            recycle_database(str(values["database.url"]))


class RawDatabase:
    """A raw connection to a brain, for edits "behind the server's back".

    Statements use ``?`` placeholders on both engines; each one commits.
    """

    def __init__(self, home: Path) -> None:
        settings = load_settings(home, env={})
        url = settings.database_url
        self._postgres = url is not None
        self._conn: Any
        if url is not None:
            import psycopg

            self._conn = psycopg.connect(url, autocommit=True)
        else:
            self._conn = sqlite3.connect(settings.db_path, isolation_level=None)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement; the result has ``fetchone()``/``fetchall()``."""
        if self._postgres:
            sql = sql.replace("?", "%s")
        return self._conn.execute(sql, tuple(params))

    def commit(self) -> None:
        """Nothing to do: every statement commits on its own (kept for callers that ask)."""

    def close(self) -> None:
        self._conn.close()

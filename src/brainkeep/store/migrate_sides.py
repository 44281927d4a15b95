"""One end of a `brainkeep migrate` copy: a SQLite file or a PostgreSQL database, raw.

``store/migrate.py`` copies rows table by table; this module hides the two
dialects from it: placeholders, how to list a table's columns (PostgreSQL's
generated ``tsv`` columns are derived and never copied), the vector column
format (SQLite: little-endian float32 blobs; PostgreSQL: pgvector), and the
derived state rebuilt once the rows are in (SQLite's FTS5 tables, which its
repositories fill explicitly rather than by trigger; PostgreSQL's identity
sequences, which explicit ids do not advance).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from brainkeep.core.ports.store import Store
from brainkeep.errors import StoreError, Unavailable

# Where the FTS5 rows of a SQLite brain come from (store/sqlite/page_fts.py and
# memory_text.py write them; expire, delete and redact remove them).
_SQLITE_FTS = (
    "DELETE FROM pages_fts",
    "DELETE FROM chunks_fts",
    "DELETE FROM memories_fts",
    "INSERT INTO pages_fts (rowid, title, aliases) SELECT p.id, p.title, "
    "COALESCE((SELECT group_concat(alias, ' | ') FROM (SELECT alias FROM page_aliases a "
    "WHERE a.page_id = p.id ORDER BY a.rowid)), '') FROM pages p WHERE p.deleted_at IS NULL",
    "INSERT INTO chunks_fts (rowid, text) SELECT c.id, c.text FROM chunks c "
    "JOIN pages p ON p.id = c.page_id WHERE p.deleted_at IS NULL ORDER BY c.id",
    "INSERT INTO memories_fts (rowid, text) SELECT id, text FROM memories "
    "WHERE expired_at IS NULL AND deleted_at IS NULL ORDER BY id",
)


def open_target(target: str) -> Store:
    """A store on ``target``: a ``postgresql://`` URL or a SQLite file path (created)."""
    from brainkeep import store  # the engine factory (store/__init__.py)

    return store.open(target, pool_min=1, pool_max=2)


@dataclass
class Side:
    """A store seen as raw tables (the copier's only view of an engine)."""

    store: Any  # SQLiteStore | PostgresStore: both expose ``db``
    label: str

    @property
    def postgres(self) -> bool:
        return bool(self.store.engine_name == "postgres")

    def marks(self, n: int) -> str:
        return ", ".join(["%s" if self.postgres else "?"] * n)

    @property
    def mark(self) -> str:
        return "%s" if self.postgres else "?"

    def columns(self, table: str) -> list[str] | None:
        """Copyable columns of ``table`` in table order (None: no such table here)."""
        if self.postgres:
            rows = self.store.db.all(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                "current_schema() AND table_name = %s AND is_generated = 'NEVER' "
                "ORDER BY ordinal_position", (table,))
        else:
            rows = self.store.db.all(f"PRAGMA table_info({table})")
            rows = [(r["name"],) for r in rows]
        return [str(r[0]) for r in rows] or None

    def count(self, table: str) -> int:
        return int(self.store.db.scalar(f"SELECT COUNT(*) FROM {table}"))

    def fetch(self, table: str, columns: Sequence[str], key: Sequence[str],
              after: Sequence[Any] | None, offset: int, limit: int) -> list[tuple[Any, ...]]:
        """The next ``limit`` rows in key order (keyless tables: by offset)."""
        cols = ", ".join(columns)
        if key:
            order = ", ".join(key)
            where = "" if after is None else \
                f" WHERE ({order}) > ({self.marks(len(key))})"
            sql = f"SELECT {cols} FROM {table}{where} ORDER BY {order} LIMIT {int(limit)}"
            params: Sequence[Any] = () if after is None else tuple(after)
        else:
            sql = (f"SELECT {cols} FROM {table} ORDER BY {cols} "
                   f"LIMIT {int(limit)} OFFSET {int(offset)}")
            params = ()
        return [self.decode(table, columns, tuple(r)) for r in self.store.db.all(sql, params)]

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> None:
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({self.marks(len(columns))})"
        self.store.db.executemany(sql, [self.encode(table, columns, r) for r in rows])

    def update(self, table: str, column: str, key: Sequence[str],
               rows: Sequence[tuple[Any, ...]]) -> None:
        """Set ``column`` from rows of (value, *key values)."""
        where = " AND ".join(f"{k} = {self.mark}" for k in key)
        self.store.db.executemany(
            f"UPDATE {table} SET {column} = {self.mark} WHERE {where}", list(rows))

    def upsert_meta(self, rows: Sequence[tuple[Any, ...]]) -> None:
        self.store.db.executemany(
            f"INSERT INTO meta (key, value) VALUES ({self.marks(2)}) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", list(rows))

    def delete_all(self, table: str) -> None:
        self.store.db.execute(f"DELETE FROM {table}")

    # -- formats -----------------------------------------------------------

    def decode(self, table: str, columns: Sequence[str], row: tuple[Any, ...]) -> tuple[Any, ...]:
        """A row in the neutral form (vectors as little-endian float32 bytes)."""
        if table != "embeddings" or not self.postgres:
            return row
        at = list(columns).index("vector")
        value = row[at]
        if hasattr(value, "to_numpy"):  # pgvector.Vector (newer pgvector-python)
            value = value.to_numpy()
        vector = np.asarray(value, dtype="<f4").tobytes()
        return (*row[:at], vector, *row[at + 1:])

    def encode(self, table: str, columns: Sequence[str], row: tuple[Any, ...]) -> tuple[Any, ...]:
        if table != "embeddings" or not self.postgres:
            return tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)
        at = list(columns).index("vector")
        vector = np.frombuffer(row[at], dtype="<f4")  # pgvector's dumper takes ndarray
        return (*row[:at], vector, *row[at + 1:])

    # -- derived state -----------------------------------------------------

    def prepare_bulk(self, table: str) -> None:
        """Before ``table``'s rows arrive: drop what is cheaper to build once afterwards.

        PostgreSQL's HNSW indexes on ``embeddings`` take each inserted vector
        into the graph one by one (measured: 380 rows/s); built once over the
        whole table they cost a fraction of that. ``rebuild_derived`` makes
        them again. A killed copy leaves them dropped on a target that is
        marked unfinished and never opens as a brain, and the resumed copy
        rebuilds them at its end.
        """
        if not self.postgres or table != "embeddings":
            return
        with self.store.transaction():  # only here: other tables need no commit of their own
            for (name,) in self.store.db.all(
                    "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
                    "AND tablename = 'embeddings' AND indexname LIKE %s",
                    ("embeddings\\_hnsw\\_%",)):
                self.store.db.execute(f'DROP INDEX IF EXISTS "{name}"')

    def rebuild_derived(self, tables: dict[str, Sequence[str]]) -> None:
        """Rebuild what is not copied: SQLite FTS rows, PostgreSQL sequences and HNSW indexes.

        ``tables`` maps each copied table to its key columns.
        """
        if not self.postgres:
            for sql in _SQLITE_FTS:
                self.store.db.execute(sql)
            return
        for table, key in tables.items():
            if len(key) != 1:
                continue
            seq = self.store.db.scalar("SELECT pg_get_serial_sequence(%s, %s)", (table, key[0]))
            if seq is None:  # a text key, or no identity
                continue
            # is_called=false: the next id is MAX+1 (1 on an empty table).
            self.store.db.execute(
                f"SELECT setval(%s, COALESCE((SELECT MAX({key[0]}) FROM {table}), 0) + 1, false)",
                (seq,))
        if "embeddings" in tables:  # the indexes prepare_bulk dropped, one pass each
            sizes = {384: 0} | {int(r[0]): int(r[1]) for r in self.store.db.all(
                "SELECT dim, MAX(n) FROM (SELECT dim, kind, COUNT(*) AS n FROM embeddings "
                "WHERE dim <= 2000 GROUP BY dim, kind) k GROUP BY dim")}
            for dim, rows in sorted(sizes.items()):  # one statement each: one read per graph
                self._build_hnsw(dim, hnsw_build_memory(dim, rows))

    def _build_hnsw(self, dim: int, memory_kb: int) -> None:
        """One dimension's graphs, built in memory (in parallel when the server can)."""
        # A parallel build keeps its graph in shared memory of that size, which a
        # small /dev/shm refuses (Docker's default is 64 MB; SQLSTATE 53100,
        # reported as unavailable): then one backend builds it in its own memory,
        # ~2x slower. A server that is really down fails the second try too.
        for serial in (False, True):
            try:
                with self.store.transaction():
                    self.store.db.execute(f"SET LOCAL maintenance_work_mem = '{memory_kb}kB'")
                    if serial:
                        self.store.db.execute("SET LOCAL max_parallel_maintenance_workers = 0")
                    self.store.db.execute("SELECT brainkeep_ensure_hnsw(%s)", (dim,))
                return
            except (StoreError, Unavailable):
                if serial:
                    raise


def hnsw_build_memory(dim: int, rows: int) -> int:
    """kB of ``maintenance_work_mem`` for building one HNSW graph of ``rows`` vectors in memory.

    pgvector builds fast while the graph fits in maintenance_work_mem and
    falls back to a far slower build when it does not: one graph of 40,000
    384-dim vectors took 173 s at the server default of 64 MB, 75 s at 256 MB
    (2 cores, parallel build). Per vector the graph holds the vector and
    about 2 * m neighbour links at the base layer (m 32, migration 0018); the
    half again is headroom for the upper layers. Never below PostgreSQL's
    default, capped at 2 GB: this is one copy's session, not the server's
    setting.
    """
    per_row = dim * 4 + 2 * 32 * 10 + 64
    return max(64 * 1024, min(2 * 1024 * 1024, int(rows * per_row * 1.5) // 1024))

"""The SQLite engine behind the Store protocol (the embedded default)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from brainkeep.store.sql.audit_scans import AuditScansMixin
from brainkeep.store.sql.changes import ChangesMixin
from brainkeep.store.sql.checkpoints import CheckpointsMixin
from brainkeep.store.sql.cursors import CursorsMixin
from brainkeep.store.sql.dialect import SQL, SQLITE
from brainkeep.store.sql.erasure import ErasureMixin
from brainkeep.store.sql.events import EventsMixin
from brainkeep.store.sql.memories import MemoriesMixin
from brainkeep.store.sql.meta import MetaMixin
from brainkeep.store.sql.mnemo import MnemoMixin
from brainkeep.store.sql.oauth import OAuthMixin
from brainkeep.store.sql.orientation import OrientationMixin
from brainkeep.store.sql.pages import PagesMixin
from brainkeep.store.sql.quarantine import QuarantineMixin
from brainkeep.store.sql.reads import ReadsMixin
from brainkeep.store.sql.tokens import TokensMixin
from brainkeep.store.sql.vectors import VectorsMixin
from brainkeep.store.sql.verified_heads import VerifiedHeadsMixin
from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.erasure import ErasureEngineMixin
from brainkeep.store.sqlite.full_walk import FullWalkMixin
from brainkeep.store.sqlite.integrity import SQLiteIntegrityMixin
from brainkeep.store.sqlite.keyword_index import KeywordIndex
from brainkeep.store.sqlite.memory_text import MemoryTextMixin
from brainkeep.store.sqlite.page_fts import PageFtsMixin
from brainkeep.store.sqlite.search_index import SQLiteSearchIndex
from brainkeep.store.sqlite.vector_column import VectorColumnMixin


class SQLiteStore(
    QuarantineMixin,
    PagesMixin, MemoriesMixin, EventsMixin, CursorsMixin, ChangesMixin, TokensMixin, MnemoMixin,
    PageFtsMixin,
    MemoryTextMixin,
    VectorColumnMixin,
    CheckpointsMixin, AuditScansMixin, SQLiteIntegrityMixin, VectorsMixin, OAuthMixin, ReadsMixin,
    VerifiedHeadsMixin, MetaMixin, FullWalkMixin, ErasureMixin,
    ErasureEngineMixin, OrientationMixin,
):
    """A brain in one SQLite file (WAL mode)."""

    engine_name = "sqlite"

    def __init__(
        self, path: str | Path, *, synchronous: str = "FULL", busy_timeout_ms: int | None = None
    ) -> None:
        self.db = SQLiteEngine(path, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms)
        self.sql = SQL(self.db, SQLITE)
        # One keyword reader per source, kept: its term counts are cached.
        self._keywords: dict[str, KeywordIndex] = {}

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.db.transaction():
            yield

    def session(self) -> AbstractContextManager[None]:
        return self.db.session()

    def in_transaction(self) -> bool:
        """Whether this thread's connection is inside a transaction."""
        return bool(self.db.conn.in_transaction)

    def side_session(self) -> AbstractContextManager[bool]:
        return nullcontext(True)  # a thread's first statement opens its own connection

    def close(self) -> None:
        self.db.close()

    def search_index(
        self, source_id: str, *, model: str | None = None, dim: int = 0
    ) -> SQLiteSearchIndex:
        """The keyword and vector index of ``source_id`` (vectors of ``model``/``dim`` only)."""
        words = self._keywords.get(source_id)
        if words is None:
            words = self._keywords.setdefault(source_id, KeywordIndex(self.db, source_id))
        return SQLiteSearchIndex(self.db, source_id, model=model, dim=dim, words=words)

    def optimize(self) -> None:
        self.db.optimize()

    def schema_version(self) -> int:
        return self.db.schema_version()

    def describe(self) -> dict[str, Any]:
        """Engine facts for `doctor` (see ``Store.describe``)."""
        version = self.schema_version()
        shipped = [v for v, _name, _sql in self.db.available_migrations()]
        return {
            "engine": self.engine_name,
            "target": self.db.path,
            "server_version": f"SQLite {sqlite3.sqlite_version}",
            # Vectors are blobs searched with numpy: no extension to be missing.
            "vector": {"available": True, "version": f"numpy {np.__version__}"},
            "pool": None,
            "cache": None,  # pages come from the OS page cache (and the mapped ANN graphs)
            "migrations": {"schema_version": version,
                           "pending": [v for v in shipped if v > version], "skipped": []},
        }

    def size_bytes(self) -> int:
        """Database file size including its WAL."""
        total = 0
        for suffix in ("", "-wal"):
            try:
                total += os.path.getsize(self.db.path + suffix)
            except FileNotFoundError:  # no WAL file between checkpoints: it adds nothing
                continue
        return total

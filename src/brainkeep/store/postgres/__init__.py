"""The PostgreSQL engine behind the Store protocol (a team's shared brain).

Most repositories are written once for both engines in ``store/sql/`` and
run here through ``self.sql`` (``SQL`` over ``PostgresEngine`` with the
``POSTGRES`` dialect). This package keeps what truly differs: connections,
the pool and transactions (``engine``, ``connections``), migrations, the
keyword index over the generated ``tsv`` columns (``keyword``, ``term_stats``),
pgvector search (``nearest``, ``vectors``), trigram grep (``grep``), the
verifier's lean scans (``full_walk``) and chain-neighbour scan (``integrity``), the
no-op full-text hooks (``page_fts``, ``memory_text``). Every Store method is
implemented (tests/store/test_protocol_coverage.py keeps it so).

Engine-specific statements use psycopg's marks (``%s``/``%(name)s``; see
``engine.py``); shared ones use the portable marks of ``store/sql/dialect.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from brainkeep.store.postgres.describe import describe
from brainkeep.store.postgres.engine import CONNECT_TIMEOUT_S, LOCK_TIMEOUT_MS, PostgresEngine
from brainkeep.store.postgres.erasure import ErasureEngineMixin
from brainkeep.store.postgres.full_walk import FullWalkMixin
from brainkeep.store.postgres.integrity import PostgresIntegrityMixin
from brainkeep.store.postgres.keyword import TsKeyword
from brainkeep.store.postgres.memory_text import MemoryTextMixin
from brainkeep.store.postgres.page_fts import PageFtsMixin
from brainkeep.store.postgres.search_index import PostgresSearchIndex
from brainkeep.store.postgres.statistics import watch
from brainkeep.store.postgres.vector_column import VectorColumnMixin
from brainkeep.store.sql.audit_scans import AuditScansMixin
from brainkeep.store.sql.changes import ChangesMixin
from brainkeep.store.sql.checkpoints import CheckpointsMixin
from brainkeep.store.sql.cursors import CursorsMixin
from brainkeep.store.sql.dialect import POSTGRES, SQL
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


class PostgresStore(QuarantineMixin,
                    PagesMixin, MemoriesMixin, ChangesMixin, CursorsMixin, TokensMixin,
                    PageFtsMixin,
                    MemoryTextMixin,
                    VectorColumnMixin,
                    MnemoMixin, CheckpointsMixin, EventsMixin, AuditScansMixin,
                    PostgresIntegrityMixin, VectorsMixin, OAuthMixin, ReadsMixin,
                    VerifiedHeadsMixin, MetaMixin, FullWalkMixin, ErasureMixin,
                    ErasureEngineMixin, OrientationMixin):
    """A brain in one PostgreSQL database, shared by any number of processes."""

    engine_name = "postgres"

    def __init__(
        self,
        url: str,
        *,
        pool_min: int = 1,
        pool_max: int = 10,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        lock_timeout_ms: int = LOCK_TIMEOUT_MS,
    ) -> None:
        """Open (and migrate) the brain database at ``url``; see ``PostgresEngine``."""
        self.db = PostgresEngine(url, pool_min=pool_min, pool_max=pool_max,
                                 connect_timeout_s=connect_timeout_s,
                                 lock_timeout_ms=lock_timeout_ms)
        self.sql = SQL(self.db, POSTGRES)
        # Refreshes the planner statistics as the brain grows (store/sql/statistics.py).
        self.statistics = watch(self.db)
        # One keyword reader per source, kept: its term counts are cached (a
        # fresh one per search_index() call counted every term again, ~25 ms
        # a remember on the 20K corpus).
        self._keywords: dict[str, TsKeyword] = {}

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.db.transaction():
            yield
        if not self.db.in_transaction():  # the outermost block committed
            self.statistics.committed()

    def session(self) -> AbstractContextManager[None]:
        return self.db.session()

    def side_session(self) -> AbstractContextManager[bool]:
        return self.db.side_session()

    def in_transaction(self) -> bool:
        return self.db.in_transaction()

    def search_index(
        self, source_id: str, *, model: str | None = None, dim: int = 0
    ) -> PostgresSearchIndex:
        """The keyword and vector index of ``source_id`` (vectors of ``model``/``dim`` only)."""
        words = self._keywords.get(source_id)
        if words is None:
            words = self._keywords.setdefault(source_id, TsKeyword(self.db, source_id))
        return PostgresSearchIndex(self.db, source_id, model=model, dim=dim, words=words)

    def close(self) -> None:
        self.statistics.close()  # before the pool: a refresh under way finishes first
        self.db.close()

    def optimize(self) -> None:
        """Refresh planner statistics (``ANALYZE``; autovacuum does the vacuuming).

        Bounded like SQLite's ``analysis_limit``: ANALYZE samples a fixed
        number of rows per table, whatever the brain's size. Commits refresh
        them again once the brain outgrew them (store/sql/statistics.py).
        """
        self.statistics.refresh()

    def schema_version(self) -> int:
        return self.db.schema_version()

    def describe(self) -> dict[str, Any]:
        """Server and pgvector versions, pool and migrations for `doctor` (no secrets)."""
        return describe(self.db)

    def size_bytes(self) -> int:
        """The database's size on disk (``pg_database_size``), indexes and TOAST included."""
        return int(self.db.scalar("SELECT pg_database_size(current_database())"))


__all__ = ["PostgresStore"]

"""The Store protocol: the one seam between domain services and an engine.

Domain code talks only to this interface; every engine (SQLite, PostgreSQL)
implements it and passes the same contract suite (tests/store/). It is
composed of one repository protocol per concern (core/ports/: pages,
memories, events, sharing, cursors, tokens, embeddings, reads, erasure) plus
the engine's SearchIndex; a service may depend on just the repositories it uses. Methods
never commit on their own: callers group writes in ``transaction()``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from brainkeep.core.ports.cursors import CursorRepository
from brainkeep.core.ports.embeddings import EmbeddingRepository
from brainkeep.core.ports.erasure import ErasureRepository
from brainkeep.core.ports.events import EventLog
from brainkeep.core.ports.memories import MemoryRepository
from brainkeep.core.ports.oauth import OAuthRepository
from brainkeep.core.ports.orientation import OrientationRepository
from brainkeep.core.ports.pages import PageRepository
from brainkeep.core.ports.quarantine import QuarantineRepository
from brainkeep.core.ports.reads import ReadRepository
from brainkeep.core.ports.sharing import SharingRepository
from brainkeep.core.ports.tokens import TokenRepository


class Store(
    QuarantineRepository,
    PageRepository, MemoryRepository, EventLog, SharingRepository, CursorRepository,
    TokenRepository, OAuthRepository, EmbeddingRepository, ReadRepository, ErasureRepository,
    OrientationRepository, Protocol,
):
    """What domain services need from persistence.

    Contract: the engine assigns event seq and prev_hash (``append_event``)
    and memory prev_hash (``insert_memory``, the newest ``content_hash`` of
    the same (agent, thread) chain) inside transaction(); writes are
    serialized, so no two writers can read the same chain tail. Domain code
    never computes a chain link.
    """

    engine_name: str

    # -- lifecycle & meta --------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]: ...
    def session(self) -> AbstractContextManager[None]:
        """One request's statements, outside any transaction, on one connection (re-entrant).

        Engines with a connection pool check a connection out once for the
        block instead of once per statement; an embedded engine has nothing
        to share and returns a no-op. It changes no isolation: each statement
        still sees the latest commits.
        """
        ...
    def side_session(self) -> AbstractContextManager[bool]:
        """A ``session()`` for a read run beside another thread's, if one can be had now.

        Yields True inside the session, or False (holding nothing) when the
        engine has no connection to spare without waiting: a pool whose
        connections are held by the threads waiting for this read must not
        make it wait for them. The caller then does the read itself.
        """
        ...
    def close(self) -> None: ...
    def optimize(self) -> None: ...
    def schema_version(self) -> int: ...
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def counts(self) -> dict[str, int]: ...
    def size_bytes(self) -> int: ...
    def describe(self) -> dict[str, Any]:
        """What `doctor` shows about the engine, engine-neutral keys, never a secret.

        ``engine``, ``target`` (a path, or host:port/database without the
        password), ``server_version``, ``vector`` (``available`` and
        ``version``), ``pool`` (connection pool counters; None without one),
        ``migrations`` (``schema_version``, ``pending`` and ``skipped``
        versions), ``cache`` (a server's buffer cache against what search
        reads: ``size_bytes``, ``search_bytes``, ``fits``; None for an
        engine that relies on the OS page cache alone). Raises
        ``Unavailable`` when the database is unreachable.
        """
        ...

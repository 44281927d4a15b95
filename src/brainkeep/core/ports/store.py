"""The Store protocol: the one seam between domain services and an engine.

Every engine (SQLite, PostgreSQL) implements it and passes the same
contract suite (tests/store/). It is composed of one repository protocol
per concern (core/ports/: pages, memories, events, sharing, cursors,
tokens, oauth, embeddings, reads, erasure, quarantine, orientation, meta,
maintenance) plus ``Transactions`` (transactions.py); ``search_index`` hands out the
engine's SearchIndex. Services take only the repositories they use, or a
composite of them (composites.py); the composition root (brain.py) passes
this one engine object to each. Methods never commit on their own: callers
group writes in ``transaction()``.
"""

from __future__ import annotations

from typing import Any, Protocol

from brainkeep.core.ports.cursors import CursorRepository
from brainkeep.core.ports.embeddings import EmbeddingRepository
from brainkeep.core.ports.erasure import ErasureRepository
from brainkeep.core.ports.events import EventLog
from brainkeep.core.ports.maintenance import Maintenance
from brainkeep.core.ports.memories import MemoryRepository
from brainkeep.core.ports.meta import MetaRepository
from brainkeep.core.ports.oauth import OAuthRepository
from brainkeep.core.ports.orientation import OrientationRepository
from brainkeep.core.ports.pages import PageRepository
from brainkeep.core.ports.quarantine import QuarantineRepository
from brainkeep.core.ports.reads import ReadRepository
from brainkeep.core.ports.sharing import SharingRepository
from brainkeep.core.ports.tokens import TokenRepository
from brainkeep.core.ports.transactions import Transactions


class Store(
    QuarantineRepository,
    PageRepository, MemoryRepository, EventLog, SharingRepository, CursorRepository,
    TokenRepository, OAuthRepository, EmbeddingRepository, ReadRepository, ErasureRepository,
    OrientationRepository, MetaRepository, Maintenance, Transactions, Protocol,
):
    """What domain services need from persistence.

    Contract: the engine assigns event seq and prev_hash (``append_event``)
    and memory prev_hash (``insert_memory``, the newest ``content_hash`` of
    the same (agent, thread) chain) inside transaction(); writes are
    serialized, so no two writers can read the same chain tail. Domain code
    never computes a chain link.
    """

    engine_name: str

    # -- lifecycle ---------------------------------------------------------
    def close(self) -> None: ...
    def schema_version(self) -> int: ...
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

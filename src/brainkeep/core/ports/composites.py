"""Composite ports: the repositories one service writes through, with its transactions.

A service is typed by exactly what it uses, so mypy proves it touches
nothing else; when that is several repositories (and ``transaction()``),
the set is named here once for what it holds. The engines implement all
of them by implementing ``Store`` (store.py); the composition root
(brain.py) hands the same engine object to every service.
"""

from __future__ import annotations

from typing import Protocol

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


class LoggedWrites(EventLog, Transactions, Protocol):
    """The event log and the transactions its appends run in (anchors)."""


class MemoryLog(MemoryRepository, EventLog, Protocol):
    """The memories table and the event log its writes append to."""


class MemoryWrites(MemoryLog, QuarantineRepository, Protocol):
    """The one write path of memories: rows, their log and the quarantine holds it records."""


class ChainStore(MemoryLog, Transactions, Protocol):
    """Memories, their event chain and transactions: what the verifier walks and records."""


class PageSearchStore(PageRepository, EmbeddingRepository, Protocol):
    """Pages and their retrieval views: what page search and entity resolution read."""


class FactStore(MemoryWrites, SharingRepository, PageSearchStore, Protocol):
    """What MCP facts write and read: memories, their log and holds, grants, entity pages.

    No ``Transactions``: fact writes commit through the brain's group commit
    (core/memory/group_commit.py), never a transaction of their own.
    """


class ErasureStore(ErasureRepository, MemoryLog, Protocol):
    """Memories, their log and every copy of their text: what a purge and its receipt check."""


class VectorStore(EmbeddingRepository, Transactions, Protocol):
    """Stored vectors and the transactions that write them (the sparse arm)."""


class EmbeddingStore(VectorStore, MetaRepository, Protocol):
    """Stored vectors plus the recorded vector space (model and dimension in meta)."""


class PageStore(PageRepository, EventLog, QuarantineRepository, Transactions, Maintenance,
                Protocol):
    """Pages, their log, quarantine holds, transactions and the upkeep after a bulk import."""


class QuarantineStore(QuarantineRepository, MemoryLog, PageRepository, Transactions, Protocol):
    """The held queue and the memories and pages it holds back: the operator's review."""


class EventSubjectRows(MemoryRepository, PageRepository, TokenRepository, OAuthRepository,
                    Protocol):
    """The rows an event can name: what deciding an event's visibility looks up."""


class TokenStore(TokenRepository, EventLog, Transactions, Protocol):
    """Access tokens, the log their issue and revoke append to, and transactions."""


class OAuthStore(OAuthRepository, EventLog, MetaRepository, Transactions, Protocol):
    """OAuth clients and grants, their log, the consent password (meta) and transactions."""


class MetaStore(MetaRepository, Transactions, Protocol):
    """The meta table and transactions (the console's admin password)."""


class VerbStore(FactStore, ErasureStore, CursorRepository, OrientationRepository, Transactions,
                Protocol):
    """What the verbs use directly: the facts' store, erasure, delta cursors, orientation."""


class MnemoStore(MemoryWrites, SharingRepository, ReadRepository, OrientationRepository,
                 ErasureRepository, MetaRepository, Transactions, Protocol):
    """What the Mnemo RPCs use: memories, log, sharing, reads, orientation, erasure, meta."""

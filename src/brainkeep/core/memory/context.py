"""What every Mnemo service shares: the store, the clock, the source, the vector seam."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from brainkeep.core.clock import Clock
from brainkeep.core.memory.group_commit import GroupCommit
from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.memory.reads import ReadLog
from brainkeep.core.models import Event, Memory, NewEvent
from brainkeep.core.ports.search_index import SearchIndex

if TYPE_CHECKING:  # the store protocol imports our models: type-only to avoid a cycle
    from brainkeep.core.ports.composites import MnemoStore
    from brainkeep.core.receipts import ReceiptIssuer
    from brainkeep.core.verify_halves import SideWalk

T = TypeVar("T")


class MemoryVectors(Protocol):
    """The vector arm of recall (the embeddings work plugs in here; None today).

    ``search_memories`` returns ``(memories.id, cosine)`` pairs, best first,
    optionally restricted to ``memory_ids_filter``. Given ``scope``, the
    engine returns the nearest rows that pass it (SQLite) or candidates
    (others); the store re-applies visibility afterwards either way.
    """

    def search_memories(
        self, query: str, memory_ids_filter: list[int] | None, limit: int, *,
        scope: MemoryFilter | None = None,
    ) -> list[tuple[int, float]]: ...


class MemoryIndexer(Protocol):
    """Stores a vector for each new memory (the embeddings service); optional.

    ``embed_memory`` runs the model before the write transaction (None when
    the provider failed: `brainkeep embed` fills the vector in later);
    ``write_memory`` stores it inside the memory's own transaction.
    """

    def embed_memory(self, text: str) -> Any | None: ...
    def write_memory(self, memory: Memory, vector: Any) -> None: ...


@dataclass(frozen=True)
class MnemoContext:
    """Dependencies of the Mnemo services, handed down by ``Brain``."""

    store: MnemoStore
    clock: Clock
    source_id: str
    vectors: MemoryVectors | None = None
    indexer: MemoryIndexer | None = None
    # The engine's keyword index (BM25 recall); the store's own reads re-check it.
    index: SearchIndex = field(kw_only=True)
    # Where a full Verify walks the log and pages (core/verify_halves.py; None: inline).
    verify_side: SideWalk | None = field(default=None, kw_only=True)
    # Issues the receipt of a purging forget (core/receipts.py; None: no receipt).
    receipts: ReceiptIssuer | None = field(default=None, kw_only=True)
    # The brain's one group commit, shared with the MCP facts (FactService):
    # both protocols' memory writes batch together, so neither starves the other.
    writer: GroupCommit = field(kw_only=True, compare=False, repr=False)
    reads: ReadLog = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reads", ReadLog(self))

    def transact(self, work: Callable[[], T]) -> T:
        """Run ``work`` in a committed write transaction (see ``group_commit``)."""
        return self.writer.run(work)

    def log(self, kind: str, subject_type: str, subject_id: str, payload: dict[str, Any],
            *, actor: str, now: str) -> Event:
        """Append one non-memory event (call inside the write's transaction).

        Memory events are built by ``core.events`` so both protocols write
        one payload per kind; append them with ``store.append_event``.
        """
        return self.store.append_event(
            NewEvent(kind=kind, subject_type=subject_type, subject_id=subject_id,
                     payload=payload, source_id=self.source_id, actor=actor),
            now,
        )

"""The read log: who recalled what, kept beside the hash chain, not in it.

Part of the Store protocol (core/ports/store.py); no method commits on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from brainkeep.core.memory.reads import MemoryRead


class ReadRepository(Protocol):
    """Recall reads (``memory_reads``): appended in batches, read per tenant."""

    def append_reads(self, reads: list[MemoryRead]) -> None: ...
    # One tenant only (``org_id`` None: the tenant without an org); ``agent_id``
    # None: every reader of it; ``thread_id`` set: reads made in that thread.
    def iter_reads(
        self, org_id: str | None, agent_id: str | None, thread_id: str | None
    ) -> Iterator[MemoryRead]: ...

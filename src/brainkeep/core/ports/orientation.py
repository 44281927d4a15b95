"""The orientation cache's persistence: per-namespace context maps kept in the brain.

Part of the Store protocol (core/ports/store.py); no method commits on its own.
A namespace is keyed by tenant (``org_id``; ``None`` is the tenant without an
org) and label. Each entry is stored with the memory it came from, so a read
counts only the rows its reader may see (the recall filter's read scope).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from brainkeep.core.memory.orientation_map import Observation, StoredMap
from brainkeep.core.scope import ReadScope


class OrientationRepository(Protocol):
    """Context maps (``orientation_namespaces``, ``orientation_entries``: migration 0016)."""

    # Count one hit on the namespace (created on first use) and one more
    # occurrence of each (memory id, observation); increments happen in SQL,
    # so concurrent recalls on any number of processes lose none.
    def orientation_record(
        self, org_id: str | None, namespace: str,
        observations: Sequence[tuple[int, Observation]], now: str,
    ) -> None: ...
    # The namespace (of ``scope``'s tenant): its hit count and, per kind, its
    # ``per_kind`` most frequent entries, each counted over the source rows of
    # ``source_id`` that ``scope`` may read and that are live at ``now`` only.
    def orientation_read(
        self, namespace: str, *, source_id: str, scope: ReadScope, now: str, per_kind: int,
    ) -> StoredMap: ...
    # Remove what these memories contributed to every map (a redaction or
    # erasure leaves no derived text behind); returns the entries removed.
    def orientation_purge(self, memory_ids: Sequence[int]) -> int: ...

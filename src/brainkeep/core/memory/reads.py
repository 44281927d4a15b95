"""Read accounting for Recall: access counts and read rows, written in batches.

Recall must count each access (``access_count``, ``last_accessed_at``) and
leave a read trace for TrajectoryAudit's read-only-retrieval signal. Reads
are statistics, not acknowledged writes, so they stay out of the hash chain
(issue 13: the chain grows with writes, not reads) and land in the
``memory_reads`` table instead: one row per recall naming the tenant
(``org_id``), the reader, the surface, the strategy and the memories
returned, never the query. Doing that inside every Recall would cost a write
transaction and an fsync per read, so rows and access counts are buffered
here and flushed together in one transaction: ``FLUSH_INTERVAL_S`` after the
first buffered read (a short-lived thread that exits when idle), at
``FLUSH_AT_RECALLS`` buffered recalls, before a TrajectoryAudit, when the
gRPC server stops and when the brain closes.

Loss bound (docs/audit.md, "Reads"): a crash loses at most the reads of the
last interval (``FLUSH_INTERVAL_S``, or ``FLUSH_AT_RECALLS`` recalls if that
comes first) plus a flush in flight; a flush that fails is dropped and
logged. Never a memory, never an event of the chain.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from brainkeep.core.clock import Clock

T = TypeVar("T")

log = logging.getLogger("brainkeep.mnemo")
FLUSH_INTERVAL_S = 0.05
FLUSH_AT_RECALLS = 512


@dataclass(frozen=True)
class MemoryRead:
    """One recall as the read log keeps it (``memory_reads``; ``id`` None until stored)."""

    ts: str
    source_id: str
    org_id: str | None  # the reader's tenant: TrajectoryAudit of one org sees only its reads
    agent_id: str
    thread_id: str | None
    surface: str  # grpc | mcp
    strategy: str
    memory_ids: tuple[int, ...]  # memories.id returned, best first
    id: int | None = None


class _ReadStore(Protocol):
    def add_memory_access(self, counts: list[tuple[int, int]], now: str) -> None: ...
    def append_reads(self, reads: list[MemoryRead]) -> None: ...


class ReadSink(Protocol):
    """What a flush writes through: the part of ``MnemoContext`` this module uses.

    Named here, not imported, because ``MnemoContext`` owns a ``ReadLog``:
    importing it back would be an import cycle.
    """

    @property
    def clock(self) -> Clock: ...
    @property
    def store(self) -> _ReadStore: ...
    @property
    def source_id(self) -> str: ...
    def transact(self, work: Callable[[], T]) -> T: ...


class ReadLog:
    """Buffers recall side effects of one brain and flushes them in one transaction."""

    def __init__(self, ctx: ReadSink, *, interval: float = FLUSH_INTERVAL_S) -> None:
        self._ctx = ctx
        self._interval = interval
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._counts: Counter[int] = Counter()
        self._reads: list[MemoryRead] = []
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def record(self, agent: str, strategy: str, memory_ids: list[int], *,
               org_id: str | None = None, thread_id: str | None = None,
               surface: str = "grpc") -> dict[int, int]:
        """Buffer one recall; returns each memory's accesses not yet written."""
        read = MemoryRead(self._ctx.clock.now_ts(), self._ctx.source_id, org_id, agent,
                          thread_id, surface, strategy, tuple(memory_ids))
        with self._lock:
            self._counts.update(memory_ids)
            self._reads.append(read)
            unwritten = {mid: self._counts[mid] for mid in memory_ids}
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="brainkeep-reads",
                                                daemon=True)
                self._thread.start()
            full = len(self._reads) >= FLUSH_AT_RECALLS
        if full:
            self._wake.set()
        return unwritten

    def flush(self) -> int:
        """Write everything buffered so far; returns the number of recalls written."""
        ctx = self._ctx
        with self._flush_lock:
            with self._lock:
                counts, reads = self._counts, self._reads
                self._counts, self._reads = Counter(), []
            if not reads:
                return 0

            def work() -> None:
                ctx.store.add_memory_access(sorted(counts.items()), ctx.clock.now_ts())
                ctx.store.append_reads(reads)

            ctx.transact(work)
            return len(reads)

    def _run(self) -> None:
        """Flush every interval while reads keep coming; exit once idle."""
        while True:
            self._wake.wait(self._interval)
            self._wake.clear()
            try:
                self.flush()
            except Exception:  # a background thread has no caller to raise to
                log.exception("writing recall reads and access counts failed; they are dropped")
            with self._lock:
                if not self._reads:
                    self._thread = None
                    return

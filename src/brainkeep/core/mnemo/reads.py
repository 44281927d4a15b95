"""Read accounting for Recall: access counts and read events, written in batches.

Recall must count each access (``access_count``) and leave a read trace for
TrajectoryAudit's read-only-retrieval signal. Doing that inside every Recall
costs a write transaction and an fsync per read, which dominated Recall
latency under load. Reads are statistics, not acknowledged writes, so they
are buffered here and flushed together: one transaction, one access update
per memory, one ``memory.recall`` event listing the reading agents. A flush happens
``FLUSH_INTERVAL_S`` after the first buffered read (a short-lived thread
that exits when idle), when the buffer is large, before a TrajectoryAudit,
and when the gRPC server stops. The trade-off, documented in docs/grpc.md: a
crash can lose the access counts and read events of the last interval;
never a memory.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from brainkeep.core.clock import Clock
from brainkeep.core.models import Event

T = TypeVar("T")

log = logging.getLogger("brainkeep.mnemo")
FLUSH_INTERVAL_S = 0.05
FLUSH_AT_RECALLS = 512


@dataclass
class _AgentReads:
    recalls: int = 0
    returned: int = 0
    strategies: Counter[str] = field(default_factory=Counter)


class _AccessStore(Protocol):
    def mnemo_add_access(self, counts: list[tuple[int, int]], now: str) -> None: ...


class ReadSink(Protocol):
    """What a flush writes through: the part of ``MnemoContext`` this module uses.

    Named here, not imported, because ``MnemoContext`` owns a ``ReadLog``:
    importing it back would be an import cycle.
    """

    @property
    def clock(self) -> Clock: ...
    @property
    def store(self) -> _AccessStore: ...
    def transact(self, work: Callable[[], T]) -> T: ...
    def log(self, kind: str, subject_type: str, subject_id: str, payload: dict[str, Any],
            *, actor: str, now: str) -> Event: ...


class ReadLog:
    """Buffers recall side effects of one brain and flushes them in one transaction."""

    def __init__(self, ctx: ReadSink, *, interval: float = FLUSH_INTERVAL_S) -> None:
        self._ctx = ctx
        self._interval = interval
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._counts: Counter[int] = Counter()
        self._agents: dict[str, _AgentReads] = {}
        self._pending = 0
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def record(self, agent: str, strategy: str, memory_ids: list[int]) -> dict[int, int]:
        """Buffer one recall; returns each memory's accesses not yet written."""
        with self._lock:
            self._counts.update(memory_ids)
            reads = self._agents.setdefault(agent, _AgentReads())
            reads.recalls += 1
            reads.returned += len(memory_ids)
            reads.strategies[strategy] += 1
            self._pending += 1
            unwritten = {mid: self._counts[mid] for mid in memory_ids}
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="brainkeep-reads",
                                                daemon=True)
                self._thread.start()
            full = self._pending >= FLUSH_AT_RECALLS
        if full:
            self._wake.set()
        return unwritten

    def flush(self) -> int:
        """Write everything buffered so far; returns the number of recalls written."""
        ctx = self._ctx
        with self._flush_lock:
            with self._lock:
                counts, agents, recalls = self._counts, self._agents, self._pending
                self._counts, self._agents, self._pending = Counter(), {}, 0
            if not recalls:
                return 0

            readers = {
                agent: {"recalls": r.recalls, "returned": r.returned,
                        "strategies": dict(sorted(r.strategies.items()))}
                for agent, r in sorted(agents.items())
            }

            def work() -> None:
                now = ctx.clock.now_ts()
                ctx.store.mnemo_add_access(sorted(counts.items()), now)
                # One event per flush, not per agent: hashing an event costs
                # ~0.1 ms of interpreter time that every in-flight RPC waits on.
                ctx.log("memory.recall", "reads", "recall-batch",
                        {"recalls": recalls, "readers": readers},
                        actor="brainkeep", now=now)

            ctx.transact(work)
            return recalls

    def _run(self) -> None:
        """Flush every interval while reads keep coming; exit once idle."""
        while True:
            self._wake.wait(self._interval)
            self._wake.clear()
            try:
                self.flush()
            except Exception:  # a background thread has no caller to raise to
                log.exception("writing recall access counts failed; they are dropped")
            with self._lock:
                if not self._pending:
                    self._thread = None
                    return

"""Reads of one request run beside each other: recall's arms and their vector halves.

``recall(query)`` runs its page arm beside its facts arm, and each arm runs
its vector search beside its keyword searches. These are independent reads
spending most of their time outside the interpreter lock (SQLite steps,
PostgreSQL round trips, the model run, the graph search), so on two cores
they overlap well (docs/search.md, "The arms run beside each other"). The query embedding the
two vector searches need is computed once: ``Embeddings.embed_query`` makes
the second caller wait for the first.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from typing import TypeVar

from brainkeep.core.ports.transactions import Transactions

T = TypeVar("T")


def inline(read: Callable[[], T]) -> Callable[[], T]:
    """Run ``read`` now; the returned callable gives its result (a service without workers)."""
    result = read()
    return lambda: result


class Overlap:
    """Starts a read on a worker thread and hands back a way to wait for it.

    The read runs on the caller's thread instead whenever a worker would
    have to be waited for: inside a transaction (the worker's connection
    would not see its uncommitted writes), when every worker is busy (more
    requests than workers: queueing would only add latency), and when the
    engine has no connection to spare (a pool held by the requests waiting
    here must not starve the workers they wait for).
    """

    def __init__(self, store: Transactions, executor: Executor | None, *, workers: int = 0) -> None:
        """``workers``: how many reads may run beside their callers at once."""
        self.store = store
        self.executor = executor
        self._slots = threading.BoundedSemaphore(max(workers, 1))

    def start(self, read: Callable[[], T]) -> Callable[[], T]:
        """Begin ``read``; the returned callable waits for its result (or raises its error)."""
        if (self.executor is None or self.store.in_transaction()
                or not self._slots.acquire(blocking=False)):
            return inline(read)
        context = contextvars.copy_context()  # the request's log fields go along

        def beside() -> tuple[bool, T | None]:
            try:
                with self.store.side_session() as spare:
                    return (True, read()) if spare else (False, None)
            finally:
                self._slots.release()

        future = self.executor.submit(context.run, beside)

        def wait() -> T:
            ran, result = future.result()
            return result if ran else read()  # type: ignore[return-value]

        return wait

"""Group commit: concurrent writes share one transaction (and one fsync).

SQLite has one writer, and with ``synchronous=FULL`` every COMMIT waits for
an fsync (about 2-3 ms on this class of disk). Committing each write on its own
caps a server at a few hundred writes per second and makes concurrent
callers sleep in SQLite's busy handler. Here a caller queues its job; the
first caller to get the write lock becomes the leader, runs every queued job
in one transaction (each inside its own savepoint, so one failing job does
not undo the others), commits once, and hands each caller its own result or
exception. Nobody is answered before the commit that holds their write is
durable, so durability is unchanged; only the fsync is shared. No background
thread: with no concurrency every job simply commits alone.

The brain owns one instance (``Brain.writer``) and hands it to both
protocols' memory services (``FactService`` and ``MnemoContext``), so MCP
facts and Mnemo memories batch together under one discipline.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from brainkeep.core.ports.transactions import Transactions

T = TypeVar("T")
MAX_BATCH = 128


@dataclass
class _Job(Generic[T]):
    work: Callable[[], T]
    # Set by the leader before it releases the leader lock, which every
    # waiter takes before reading it: a flag, not an Event (nobody waits on it).
    done: bool = False
    result: Any = None
    error: BaseException | None = None


class GroupCommit:
    """Runs write jobs in shared transactions on ``store``."""

    def __init__(self, store: Transactions, *, max_batch: int = MAX_BATCH) -> None:
        self._store = store
        self._max_batch = max_batch
        self._queue: list[_Job[Any]] = []
        self._queue_lock = threading.Lock()
        self._leader = threading.Lock()
        self._inside = threading.local()

    def run(self, work: Callable[[], T]) -> T:
        """Run ``work`` inside a committed transaction and return its result.

        ``work`` runs on whichever caller thread leads the batch, so it must
        only use the store (its statements run on the leader's connection)
        and its own closure, never thread-local state of the caller. Its
        exception is raised here, in the caller, after the batch; its writes
        are rolled back and the other jobs still commit.
        """
        if getattr(self._inside, "job", False):
            # Already inside a batch (a job calling a writing helper): join its transaction.
            return work()
        if self._store.in_transaction():
            # The caller's own transaction is open on this thread: the write must
            # commit with it (a savepoint, as a nested transaction() always was),
            # not in a batch another thread leads and commits first, which would
            # answer before the caller's commit and wait on the caller's write lock.
            with self._store.transaction():
                return work()
        job: _Job[T] = _Job(work)
        with self._queue_lock:
            self._queue.append(job)
        while not job.done:
            with self._leader:
                if job.done:
                    break
                with self._queue_lock:
                    batch = self._queue[: self._max_batch]
                    del self._queue[: self._max_batch]
                if batch:
                    self._commit(batch)
        if job.error is not None:
            raise job.error
        return job.result  # type: ignore[no-any-return]

    def _commit(self, batch: list[_Job[Any]]) -> None:
        if len(batch) == 1:
            self._commit_alone(batch[0])
            return
        try:
            with self._store.transaction():
                for job in batch:
                    self._inside.job = True
                    try:
                        with self._store.transaction():  # a savepoint per job
                            job.result = job.work()
                    except Exception as exc:  # the job's own failure, reported to its caller
                        job.error = exc
                    finally:
                        self._inside.job = False
        except BaseException as exc:  # the COMMIT (or BEGIN) failed: nothing is durable
            for job in batch:
                if job.error is None:
                    job.error = exc
                    job.result = None
            if not isinstance(exc, Exception):
                raise
        finally:
            for job in batch:
                job.done = True

    def _commit_alone(self, job: _Job[Any]) -> None:
        """A batch of one: the job's transaction is the batch's, with no savepoint.

        A failing job rolls back what only it wrote, as its savepoint would.
        A savepoint makes SQLite journal every page the job changes: without
        it a lone ``remember`` spends 0.37 ms in SQL instead of 0.52.
        """
        self._inside.job = True
        try:
            with self._store.transaction():
                job.result = job.work()
        except BaseException as exc:  # the job or its COMMIT failed: nothing is durable
            job.error, job.result = exc, None
            if not isinstance(exc, Exception):
                raise
        finally:
            self._inside.job = False
            job.done = True

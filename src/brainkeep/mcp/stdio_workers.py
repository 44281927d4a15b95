"""Helpers of the lean stdio session: worker threads, and the brain opened in the background."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from brainkeep.errors import BrainkeepError
from brainkeep.ops.dispatch import Dispatcher, Outcome, opaque_internal, verb_error
from brainkeep.ops.registry import build_catalog, open_dispatcher

if TYPE_CHECKING:
    from brainkeep.brain import Brain

log = logging.getLogger("brainkeep.stdio")

# Concurrent calls of one connection. Writes serialize on the store anyway;
# the bound only keeps a flood of slow reads from starting a thread each.
MAX_WORKERS = 16


# A call's job computes the answer and returns how to deliver it (or None).
Deliver = Callable[[], None]
Job = Callable[[], Deliver | None]


class Workers:
    """Daemon threads running submitted calls; a new one starts only when all are busy.

    Daemon, unlike ``concurrent.futures``, whose exit hook joins every worker:
    a call still running when the shutdown grace ends must not hold the
    process open.

    The most recently idle worker takes the next call, and a worker is back
    among the idle before it delivers its answer: a client that waits for each
    reply before its next request (every agent host) is served by one warm
    thread. When the reply left first, the next request found every worker
    busy and started another, up to the limit, and the calls went round them
    all, each thread then with a SQLite connection of its own (stdio
    ``remember``: 1.7 ms of CPU instead of 1.0).
    """

    def __init__(self, limit: int = MAX_WORKERS) -> None:
        self._limit = limit
        self._lock = threading.Condition()
        self._idle: list[queue.SimpleQueue[Job]] = []  # each idle worker's inbox, newest last
        self._waiting: deque[Job] = deque()  # submitted while every worker was busy
        self._threads = 0
        self._running = 0  # submitted and not yet delivered

    def submit(self, job: Job) -> None:
        with self._lock:
            self._running += 1
            if self._idle:
                self._idle.pop().put(job)
            elif self._threads < self._limit:
                self._threads += 1
                inbox: queue.SimpleQueue[Job] = queue.SimpleQueue()
                inbox.put(job)
                threading.Thread(target=self._work, args=(inbox,), daemon=True,
                                 name=f"brainkeep-call-{self._threads}").start()
            else:
                self._waiting.append(job)

    def _work(self, inbox: queue.SimpleQueue[Job]) -> None:
        while True:
            job = inbox.get()
            deliver = self._run(job)
            with self._lock:
                if self._waiting:
                    inbox.put(self._waiting.popleft())
                else:
                    self._idle.append(inbox)
            if deliver is not None:
                self._run(deliver)
            with self._lock:
                self._running -= 1
                self._lock.notify_all()

    @staticmethod
    def _run(step: Callable[[], Deliver | None]) -> Deliver | None:
        try:
            return step()
        except BaseException:  # noqa: BLE001 — a job answers its own errors; never die
            log.exception("stdio: a call failed outside the dispatcher")
            return None

    def drain(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the submitted calls to be answered; True if they were."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._running:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True


class BrainSlot:
    """The brain and its dispatcher, opened once in a background thread.

    ``start`` begins opening (idempotent); ``dispatcher`` waits for it. After
    the dispatcher is ready the same thread warms the brain (embedding model),
    so the first recall by query does not pay for the load, while calls that
    need no vectors already run.
    """

    def __init__(self, open_brain: Callable[[], Brain], surface: str) -> None:
        self._open_brain = open_brain
        self._surface = surface
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._done = threading.Event()
        self._dispatcher: Dispatcher | None = None
        self._error: BaseException | None = None

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._open, daemon=True,
                                                name="brainkeep-open")
                self._thread.start()

    def dispatcher(self) -> Dispatcher:
        """The dispatcher, once the brain is open (raises what opening raised)."""
        self.start()
        self._ready.wait()
        if self._dispatcher is None:
            assert self._error is not None
            raise self._error
        return self._dispatcher

    def settle(self, timeout: float) -> None:
        """Wait (bounded) for a started open and warm-up to finish."""
        if self._thread is not None:
            self._done.wait(timeout)

    def failure(self, name: str, exc: BaseException) -> Outcome:
        """The tools/call answer when the brain could not be opened."""
        op = build_catalog().get(name)
        error = exc if isinstance(exc, BrainkeepError) and exc.code != "internal" else (
            opaque_internal(name, exc))
        return Outcome(verb_error(error) if op is not None and op.verb else error.payload(),
                       True, retryable=error.retryable)

    def _open(self) -> None:
        try:
            brain = self._open_brain()
            self._dispatcher = open_dispatcher(brain, self._surface)
        except BaseException as exc:  # noqa: BLE001 — handed to every call, not lost
            log.error("stdio: the brain did not open: %s", exc)
            self._error = exc
            return
        finally:
            self._ready.set()
            if self._dispatcher is None:
                self._done.set()
        try:
            for step, name in ((brain.warm, "warm-up"),
                               # A long-running server should plan with fresh
                               # statistics, but after the first calls can run:
                               # ANALYZE of a big brain takes a quarter of a
                               # second (the stored statistics serve meanwhile).
                               (brain.store.optimize, "statistics refresh")):
                try:
                    step()
                except BrainkeepError as exc:
                    log.warning("%s skipped: %s", name, exc.message)
        finally:
            self._done.set()

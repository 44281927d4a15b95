"""The full walk's two halves, and where the second one runs.

The full walk (core/verify.py) has two independent halves: the event log
and the pages (``log_and_pages``), and the memories and grants. Each is a
few streamed scans whose cost is mostly the engine's own work, so they can
run at the same time. *Where* the log-and-pages half runs is a
``SideWalk``, handed down by the composition root:

- ``ThreadSide``: on one of the brain's worker threads. Cheap to start, but
  on SQLite the two connections still serialize much of their work inside
  one process (docs/benchmarks.md, "Full verify (issue 21)");
- a child process (``brainkeep/verify_process.py``) that opens the same
  brain again: the halves then really run on two cores, for a large brain;
- ``None``: one after the other on the caller's thread.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent import futures
from typing import Protocol, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from brainkeep.core.access_checks import Problem, check_pages
from brainkeep.core.ports.events import EventLog
from brainkeep.core.verify_log import EventWalk, walk_log

T = TypeVar("T")
LogAndPages = tuple[EventWalk, tuple[int, list[Problem]]]


def log_and_pages(store: EventLog, trusted: Ed25519PublicKey | None,
                  marker: int | None) -> LogAndPages:
    """The log-and-pages half: the event log, then every page row."""
    return walk_log(store, trusted), check_pages(store, marker)


class SideWalk(Protocol):
    """Runs ``log_and_pages`` somewhere while the caller runs ``here``."""

    def run(self, store: EventLog, trusted: Ed25519PublicKey | None, marker: int | None,
            here: Callable[[], T]) -> tuple[LogAndPages, T]:
        """Both halves' results; neither half is left running when this returns."""
        ...


def one_after_the_other(store: EventLog, trusted: Ed25519PublicKey | None, marker: int | None,
                        here: Callable[[], T]) -> tuple[LogAndPages, T]:
    """No side: the log-and-pages half, then ``here``, on the caller's thread."""
    first = log_and_pages(store, trusted, marker)
    return first, here()


class ThreadSide:
    """The log-and-pages half on a worker thread of this process."""

    def __init__(self, executor: futures.Executor | None) -> None:
        self.executor = executor

    def run(self, store: EventLog, trusted: Ed25519PublicKey | None, marker: int | None,
            here: Callable[[], T]) -> tuple[LogAndPages, T]:
        if self.executor is None or store.reopen_target() is None:
            return one_after_the_other(store, trusted, marker, here)
        side = self.executor.submit(log_and_pages, store, trusted, marker)
        try:
            mine = here()
        finally:
            futures.wait([side])  # never leave it reading a store the caller may close
        return side.result(), mine

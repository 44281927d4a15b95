"""The full walk's log-and-pages half in a child process, for a large brain.

Inside one process SQLite's two connections serialize much of their work
(the JSON functions allocate per row, under SQLite's one allocator mutex),
so a second thread buys ~5% at 200K pages; a second process opens the brain
again and walks the event log and the pages on the other core while this
one walks the memories and grants (docs/benchmarks.md, "Full verify (issue
21)"). Nothing is shared but the database: the child reads its own snapshot,
exactly as a second thread's connection would, and the state marker the
parent took first bounds what either half may judge.

A child costs a fresh interpreter (~0.3 s of imports), which is more than
the whole walk of a small brain: below ``min_events`` events the half runs
on a worker thread instead (``ThreadSide``).

This is a composition module (like ``brain.py``): it opens the store by
its target, which core never does.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent import futures
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from brainkeep.core import signing
from brainkeep.core.ports.store import Store
from brainkeep.core.verify_halves import LogAndPages, ThreadSide, log_and_pages

T = TypeVar("T")

# The log's length (its head seq) from which a child process pays off: the
# 20K bench brain (60K events) walks in ~1.7 s on threads, so a child's start
# is then already small beside what it saves.
MIN_EVENTS = 50_000


def _child(target: str, trusted: bytes | None, marker: int | None) -> LogAndPages:
    """Run in the child: open the brain again and walk its log and pages."""
    from brainkeep import store as engines

    key = None if trusted is None else Ed25519PublicKey.from_public_bytes(trusted)
    # Two connections at least: a row the lean scan rejects is re-read while
    # the scan's own cursor is still streaming.
    store = engines.open(target, pool_min=1, pool_max=4)
    try:
        return log_and_pages(store, key, marker)
    finally:
        store.close()


class ProcessSide:
    """A ``SideWalk`` (core/verify_halves.py) that uses a child process when it pays."""

    def __init__(self, threads: ThreadSide, *, min_events: int = MIN_EVENTS) -> None:
        self.threads = threads
        self.min_events = min_events

    def run(self, store: Store, trusted: Ed25519PublicKey | None, marker: int | None,
            here: Callable[[], T]) -> tuple[LogAndPages, T]:
        target = store.reopen_target()
        tip = store.chain_tip()
        if target is None or tip is None or tip[0] < self.min_events:
            return self.threads.run(store, trusted, marker, here)
        # spawn, not fork: a server forking with live pool and worker threads
        # could hand the child a lock some thread held.
        context = multiprocessing.get_context("spawn")
        raw = None if trusted is None else signing.public_bytes(trusted)
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            side = pool.submit(_child, target, raw, marker)
            try:
                mine = here()
            finally:
                futures.wait([side])
            return side.result(), mine

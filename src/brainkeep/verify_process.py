"""The full walk's log-and-pages half in a child process, for a large brain.

Inside one process SQLite's two connections serialize much of their work
(the JSON functions allocate per row, under SQLite's one allocator mutex),
so a second thread buys ~5% at 200K pages; a second process opens the brain
again and walks the event log and the pages on the other core while this
one walks the memories and grants (docs/benchmarks.md, "Full verify (issue
21)"). Nothing is shared but the database: the child reads its own snapshot,
exactly as a second thread's connection would, and the state marker the
parent took first bounds what either half may judge.

The child is ``python -m brainkeep.verify_process`` (not ``multiprocessing``,
whose spawn re-runs the parent's ``__main__``, which a host embedding
brainkeep may not allow). Its arguments arrive on stdin, never argv: a
database URL carries its password. It answers with one pickle on stdout.

A child costs a fresh interpreter (~0.3 s of imports), more than the whole
walk of a small brain: below ``min_events`` events the half runs on a worker
thread instead (``ThreadSide``).

This is a composition module (like ``brain.py``): it opens the store by
its target, which core never does.
"""

from __future__ import annotations

import logging
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from brainkeep.core import signing
from brainkeep.core.ports.events import EventLog
from brainkeep.core.verify_halves import LogAndPages, ThreadSide, log_and_pages

T = TypeVar("T")
log = logging.getLogger(__name__)

# The log's length (its head seq) from which a child process pays off: the
# 20K bench brain (60K events) walks in ~1.7 s on threads, so a child's start
# is then already small beside what it saves.
MIN_EVENTS = 50_000


def _child_main() -> None:
    """In the child: read (target, key, marker), walk the log and pages, answer."""
    from brainkeep import store as engines

    target, raw, marker = pickle.load(sys.stdin.buffer)
    key = None if raw is None else Ed25519PublicKey.from_public_bytes(raw)
    # Two connections at least: a row the lean scan rejects is re-read while
    # the scan's own cursor is still streaming.
    store = engines.open(target, pool_min=1, pool_max=4)
    try:
        result = log_and_pages(store, key, marker)
    finally:
        store.close()
    pickle.dump(result, sys.stdout.buffer)


class ProcessSide:
    """A ``SideWalk`` (core/verify_halves.py) that uses a child process when it pays."""

    def __init__(self, threads: ThreadSide, *, min_events: int = MIN_EVENTS,
                 python: str = sys.executable) -> None:
        self.threads = threads
        self.min_events = min_events
        self.python = python

    def run(self, store: EventLog, trusted: Ed25519PublicKey | None, marker: int | None,
            here: Callable[[], T]) -> tuple[LogAndPages, T]:
        target = store.reopen_target()
        tip = store.chain_tip()
        if target is None or tip is None or tip[0] < self.min_events:
            return self.threads.run(store, trusted, marker, here)
        raw = None if trusted is None else signing.public_bytes(trusted)
        request = pickle.dumps((target, raw, marker))
        with subprocess.Popen([self.python, "-m", "brainkeep.verify_process"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) as child:
            # Talk to the child on a thread, so its pipes drain while this one walks.
            answer: list[tuple[bytes, bytes]] = []
            talk = threading.Thread(target=lambda: answer.append(child.communicate(request)),
                                    name="brainkeep-verify-child", daemon=True)
            talk.start()
            try:
                mine = here()
            finally:
                talk.join()
        out, err = answer[0] if answer else (b"", b"")
        if child.returncode != 0 or not out:
            # A verify must not fail because a helper process could not run
            # (no interpreter, no memory): walk the half here instead.
            last = (err.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
            log.warning("verify: the second process failed (%s); walking on one process", last)
            return log_and_pages(store, trusted, marker), mine
        result: LogAndPages = pickle.loads(out)
        return result, mine


if __name__ == "__main__":
    _child_main()

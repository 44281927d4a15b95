"""recall's page arm beside its facts arm (core.overlap): same answers, one query embedding."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from brainkeep.brain import OVERLAP_WORKERS, Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.overlap import Overlap
from brainkeep.store.sqlite import SQLiteStore

from .conftest import SwitchableEmbedder, Verbs

PAGES = {
    "notes/pool": "Mia swims at the town pool every Wednesday after school.",
    "notes/insurance": "The car insurance renews in October; compare quotes first.",
    "notes/garden": "Tomatoes go in after the last frost, basil beside them.",
}
FACTS = ["Mia's swimming lessons are on Wednesdays at five.",
         "The car insurance renews in October.", "Basil likes the sunny bed."]
QUERIES = ["when does my daughter go swimming", "insurance renewal", "what grows in the garden"]


class SlowEmbedder(SwitchableEmbedder):
    """The real model, 50 ms slower: both arms ask for the query vector while it runs."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        time.sleep(0.05)
        return super().embed(texts)


def seed(brain: Brain, verbs: Verbs) -> None:
    for slug, body in PAGES.items():
        brain.pages.put_page(slug, body)
    for fact in FACTS:
        verbs.local("remember", fact=fact, provenance="notes")


def test_recall_answers_the_same_beside_and_in_turn(tmp_path: Path,
                                                    embedder: SwitchableEmbedder) -> None:
    slow = SlowEmbedder(embedder.inner)
    settings = load_settings(tmp_path / "home", env={})
    answers = {}
    for workers in (OVERLAP_WORKERS, 0):  # beside each other, then one after the other
        brain = open_brain(settings, embedder=slow, overlap_workers=workers)
        try:
            verbs = Verbs(brain)
            if workers:
                seed(brain, verbs)
            answers[workers] = []
            for query in QUERIES:
                before = slow.calls
                answers[workers].append(verbs.ok("recall", query=query))
                # Four reads overlap, yet the query is embedded once, not once per vector arm.
                assert slow.calls == before + 1
        finally:
            brain.close()
    assert all(answer["results"] for answer in answers[0])
    assert any(answer["facts"] for answer in answers[0])
    assert answers[OVERLAP_WORKERS] == answers[0]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path / "brain.db")
    yield opened
    opened.close()


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(1) as workers:
        yield workers


def where(overlap: Overlap) -> str:
    return overlap.start(lambda: threading.current_thread().name)()


def test_a_read_runs_on_a_worker_and_its_error_reaches_the_caller(
        store: SQLiteStore, pool: ThreadPoolExecutor) -> None:
    overlap = Overlap(store, pool, workers=1)
    assert where(overlap) != threading.current_thread().name

    def broken() -> None:
        raise LookupError("arm failed")

    wait = overlap.start(broken)
    with pytest.raises(LookupError, match="arm failed"):
        wait()


def test_a_read_runs_inline_inside_a_transaction(store: SQLiteStore,
                                                 pool: ThreadPoolExecutor) -> None:
    overlap = Overlap(store, pool, workers=1)
    with store.transaction():
        assert where(overlap) == threading.current_thread().name


def test_a_read_runs_inline_when_every_worker_is_busy(store: SQLiteStore,
                                                     pool: ThreadPoolExecutor) -> None:
    overlap = Overlap(store, pool, workers=1)
    release = threading.Event()
    busy = overlap.start(release.wait)
    assert where(overlap) == threading.current_thread().name  # no queueing behind it
    release.set()
    assert busy() is True
    assert where(overlap) != threading.current_thread().name  # the slot is free again


class NoSpareConnection(SQLiteStore):
    """An engine whose pool is fully held (PostgreSQL's case; tests/store covers the real one)."""

    @contextmanager
    def side_session(self) -> Iterator[bool]:
        yield False


def test_a_read_runs_inline_when_the_engine_has_no_connection_to_spare(
        tmp_path: Path, pool: ThreadPoolExecutor) -> None:
    store = NoSpareConnection(tmp_path / "brain.db")
    try:
        assert where(Overlap(store, pool, workers=1)) == threading.current_thread().name
    finally:
        store.close()

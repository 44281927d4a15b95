"""The ANN base rebuilds itself as the delta grows, and publishes each base atomically.

test_ann_index.py calls ``build()`` directly; these tests drive the path a
serving brain takes: searches notice the delta passing the threshold and
start the background build, and readers (other instances on the same files,
as other processes would be) only ever see a complete base, old or new,
even when a builder process is killed mid-publish. The thresholds are
injected small (``min_rows``, ``rebuild_min``, ``retry_s``) to keep brains of
a few hundred rows; the trigger code is the one a 20K-row brain runs.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from brainkeep.core.query import PageScope
from brainkeep.core.retrieval import CHUNK
from brainkeep.store.sqlite import SQLiteStore
from brainkeep.store.sqlite.ann_files import BaseMeta
from brainkeep.store.sqlite.ann_index import AnnVectorIndex, build_base
from brainkeep.store.sqlite.search_index import SQLiteSearchIndex
from brainkeep.store.sqlite.vector_index import SQLiteVectorRows
from tests.store.test_ann_index import DIM, MODEL, add_rows, units

ALL = PageScope(include_private=True)
BUILD_WAIT_S = 60.0  # a hang bound, not a speed bound: builds of a few hundred rows take ms


def vectors_of(n: int, seed: int) -> np.ndarray:
    return units(np.random.default_rng(seed), n)


def small_ann(index: SQLiteSearchIndex, **options: float) -> AnnVectorIndex:
    """An ANN index on the brain's own base files, with small injected thresholds."""
    current = index.vectors[CHUNK]
    assert isinstance(current, AnnVectorIndex)
    ann = AnnVectorIndex(SQLiteVectorRows(index.db), current.files, **options)  # type: ignore[arg-type]
    index.vectors[CHUNK] = ann
    return ann


def search_then_settle(index: SQLiteSearchIndex, ann: AnnVectorIndex,
                       query: np.ndarray) -> BaseMeta | None:
    """One search (which may start a background build), then the base in use once it ends."""
    index.nearest(CHUNK, query, ALL, 1)
    builder = ann._builder
    ann.wait_for_build(BUILD_WAIT_S)
    assert builder is None or not builder.is_alive(), "the background build hung"
    ann.sync()
    return ann.base_meta


def delete_items(store: SQLiteStore, items: range) -> None:
    with store.transaction():
        store.db.executemany("DELETE FROM embeddings WHERE kind = ? AND item_id = ?",
                             [(CHUNK, i) for i in items])


def test_searches_build_the_first_base_then_rebuild_as_the_delta_grows(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "brain.db")
    try:
        index = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        ann = small_ann(index, min_rows=300, rebuild_min=50, retry_s=0)
        first = vectors_of(600, seed=11)
        add_rows(store, CHUNK, np.arange(1, 300), first[:299])
        assert search_then_settle(index, ann, first[0]) is None  # 299 rows: exact only
        assert not ann.files.meta_path.exists()

        add_rows(store, CHUNK, np.array([300]), first[299:300])
        meta = search_then_settle(index, ann, first[0])
        assert meta is not None and (meta.generation, meta.count) == (1, 300)

        # The delta must reach max(rebuild_min = 50, 10 % of 300): 49 rows do not rebuild ...
        add_rows(store, CHUNK, np.arange(301, 350), first[300:349])
        meta = search_then_settle(index, ann, first[0])
        assert meta is not None and meta.generation == 1
        # ... the 50th does, and the new base holds every row.
        add_rows(store, CHUNK, np.array([350]), first[349:350])
        meta = search_then_settle(index, ann, first[0])
        assert meta is not None and (meta.generation, meta.count) == (2, 350)
        assert len(ann) == 350
        assert index.nearest(CHUNK, first[349], ALL, 1)[0].id == 350  # found in the base

        # Dead base rows: 70 of 350 (20 %) are tolerated, the 71st rebuilds without them.
        delete_items(store, range(1, 71))
        meta = search_then_settle(index, ann, first[0])
        assert meta is not None and meta.generation == 2
        delete_items(store, range(71, 72))
        meta = search_then_settle(index, ann, first[100])
        assert meta is not None and (meta.generation, meta.count) == (3, 350 - 71)
        assert index.nearest(CHUNK, first[100], ALL, 1)[0].id == 101
        assert 5 not in {h.id for h in index.nearest(CHUNK, first[4], ALL, 20)}
    finally:
        store.close()


def test_a_reader_during_rebuilds_sees_only_complete_bases(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "brain.db")
    try:
        vectors = vectors_of(460, seed=12)
        add_rows(store, CHUNK, np.arange(1, 401), vectors[:400])
        rows = SQLiteVectorRows(store.db)
        index = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        files = small_ann(index).files
        first = build_base(rows, files)
        assert first is not None
        published = [first]
        stamps = [files.stamp()]
        failures: list[BaseException] = []

        def keep_rebuilding() -> None:
            # Another writer and builder: each generation holds 10 more rows.
            try:
                for step in range(6):
                    start = 401 + 10 * step
                    add_rows(store, CHUNK, np.arange(start, start + 10),
                             vectors[start - 1:start + 9])
                    meta = build_base(rows, files, threads=1, full=step % 2 == 1)
                    assert meta is not None
                    published.append(meta)
                    stamps.append(files.stamp())
            except BaseException as exc:  # reported by the main thread
                failures.append(exc)

        reader = AnnVectorIndex(rows, files, background=False)
        reader.sync()
        held = reader._base  # a search in flight keeps the base it started with
        assert held is not None
        builder = threading.Thread(target=keep_rebuilding)
        builder.start()
        seen: list[tuple[int, int]] = []
        while builder.is_alive() or not seen:
            hits = reader.search(vectors[7], 1, include_private=True)
            assert [h.item_id for h in hits] == [8]
            base = reader._base
            assert base is not None, "a reader fell back to exact search mid-publish"
            assert len(base.graph) == len(base.ids) == len(base.rows) == base.meta.count
            seen.append((base.meta.generation, base.meta.count))
        builder.join(BUILD_WAIT_S)
        assert not failures, failures
        assert {(m.generation, m.count) for m in published} == \
            {(g, 400 + 10 * (g - 1)) for g in range(1, 8)}
        assert set(seen) <= {(m.generation, m.count) for m in published}
        assert seen == sorted(seen)  # never back to an older generation
        assert len(set(seen)) >= 2  # the reader did search while bases were replaced
        reader.sync()
        assert reader.base_meta == published[-1] and len(reader) == 460
        # The metadata is replaced by rename, never rewritten in place: each one is a new
        # file (inode) made beside the one it replaces (freed inodes may come back later).
        inodes = [stamp[0] for stamp in stamps if stamp]
        assert len(inodes) == 7 and all(a != b for a, b in zip(inodes, inodes[1:], strict=False))
        # The first generation's files are swept, yet a base opened before still answers.
        assert not (files.directory / first.index_file).exists()
        keys = np.asarray(held.graph.search(vectors[7], 1).keys, dtype=np.int64)
        assert int(held.rows[np.searchsorted(held.ids, keys[0]), 1]) == 8
    finally:
        store.close()


# Kills the builder process (SIGKILL: no cleanup runs) at one moment of publish():
# before or after the n-th durable rename (1: graph, 2: row table, 3: metadata).
CRASHING_BUILDER = textwrap.dedent("""
    import os, signal, sys
    from brainkeep.store.sqlite import SQLiteStore, ann_files
    from brainkeep.store.sqlite.search_index import SQLiteSearchIndex

    path, moment, model, dim = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    real, renames = ann_files._write_durably, []

    def dying(tmp, final):
        renames.append(final)
        if moment == f"before-{len(renames)}":
            os.kill(os.getpid(), signal.SIGKILL)
        real(tmp, final)
        if moment == f"after-{len(renames)}":
            os.kill(os.getpid(), signal.SIGKILL)

    ann_files._write_durably = dying
    store = SQLiteStore(path)
    SQLiteSearchIndex(store.db, "default", model=model, dim=dim).vectors["chunk"].build()
    sys.exit(3)  # not killed: the moment was never reached
""")


@pytest.mark.parametrize("moment", ["before-1", "before-2", "before-3", "after-3"])
def test_a_builder_killed_mid_publish_leaves_a_usable_base(tmp_path: Path, moment: str) -> None:
    path = tmp_path / "brain.db"
    store = SQLiteStore(path)
    try:
        vectors = vectors_of(460, seed=13)
        add_rows(store, CHUNK, np.arange(1, 401), vectors[:400])
        index = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        ann = index.vectors[CHUNK]
        assert isinstance(ann, AnnVectorIndex)
        old = ann.build()
        assert old is not None
        add_rows(store, CHUNK, np.arange(401, 461), vectors[400:])
        crashed = subprocess.run([sys.executable, "-c", CRASHING_BUILDER, str(path), moment,
                                  MODEL, str(DIM)], capture_output=True, text=True, timeout=120)
        assert crashed.returncode == -signal.SIGKILL, crashed.stderr

        after = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        fresh = after.vectors[CHUNK]
        assert isinstance(fresh, AnnVectorIndex)
        fresh.sync()
        if moment == "after-3":  # the metadata was renamed: the new base is the published one
            assert fresh.base_meta is not None
            assert (fresh.base_meta.generation, fresh.base_meta.count) == (2, 460)
        else:
            assert fresh.base_meta == old  # the old base, still whole
        assert len(fresh) == 460
        for item in (8, 400, 460):  # base rows, and delta rows when the old base answers
            assert after.nearest(CHUNK, vectors[item - 1], ALL, 1)[0].id == item
        # The next build publishes over whatever the dead builder left, and sweeps it.
        again = fresh.build()
        assert again is not None and again.count == 460
        assert again.generation == (3 if moment == "after-3" else 2)
        left = sorted(p.name for p in fresh.files.directory.iterdir())
        assert left == sorted([again.index_file, again.rows_file, fresh.files.meta_path.name,
                               fresh.files.lock_path.name])
        assert after.nearest(CHUNK, vectors[459], ALL, 1)[0].id == 460
    finally:
        store.close()

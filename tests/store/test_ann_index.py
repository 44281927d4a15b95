"""SQLite's ANN index (store/sqlite/ann_index.py) against exact search, on real brain files.

Vectors are written straight into ``embeddings`` (as the PostgreSQL vector
tests COPY them): ``nearest`` reads only that table and, for scoped memory
searches, ``memories``; embedding thousands of texts with the model would
make the test slow without testing anything more.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.models import MemoryDraft
from brainkeep.core.query import PageScope
from brainkeep.core.retrieval import CHUNK, MEMORY, FactFilter
from brainkeep.core.scope import ReadScope
from brainkeep.store.sqlite import SQLiteStore
from brainkeep.store.sqlite.ann_files import BaseFiles
from brainkeep.store.sqlite.ann_index import AnnVectorIndex
from brainkeep.store.sqlite.search_index import SQLiteSearchIndex
from tests.store.contract import insert_memory, ts

MODEL, DIM, K = "m", 32, 10
ALL = PageScope(include_private=True)

INSERT = ("INSERT INTO embeddings (kind, item_id, source_id, page_id, private, model, dim, "
          "text_hash, vector) VALUES (?, ?, 'default', ?, ?, ?, ?, ?, ?)")


def units(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def add_rows(store: SQLiteStore, kind: str, items: np.ndarray, vectors: np.ndarray, *,
             model: str = MODEL, private: np.ndarray | None = None) -> None:
    flags = np.zeros(len(items), dtype=bool) if private is None else private
    with store.transaction():
        store.db.executemany(INSERT, [
            (kind, int(i), int(i) if kind == CHUNK else None, int(p), model, vectors.shape[1],
             f"h{i}", v.astype("<f4").tobytes())
            for i, v, p in zip(items, vectors, flags, strict=True)
        ])


def exact(items: np.ndarray, vectors: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    return [int(items[i]) for i in np.argsort(-(vectors @ query), kind="stable")[:k]]


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, np.ndarray]:
    """A brain file with 20,000 chunk vectors and a built base (built once for the module)."""
    path = tmp_path_factory.mktemp("ann") / "brain.db"
    store = SQLiteStore(path)
    items = np.arange(1, 20_001)
    vectors = units(np.random.default_rng(3), len(items))
    add_rows(store, CHUNK, items, vectors)
    index = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
    ann = index.vectors[CHUNK]
    assert isinstance(ann, AnnVectorIndex)
    assert ann.build() is not None
    store.close()
    return path, items, vectors


def test_ann_results_match_exact_search(big) -> None:  # type: ignore[no-untyped-def]
    path, items, vectors = big
    store = SQLiteStore(path)
    try:
        index = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        ann = index.vectors[CHUNK]
        assert isinstance(ann, AnnVectorIndex)
        ann.sync()
        assert ann.base_meta is not None and ann.base_meta.count == 20_000
        assert index.vector_count(CHUNK) == 20_000
        recalls = []
        for q in units(np.random.default_rng(5), 100):
            hits = index.nearest(CHUNK, q, ALL, K)
            recalls.append(len({h.id for h in hits} & set(exact(items, vectors, q, K))) / K)
            assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert np.mean(recalls) >= 0.98
    finally:
        store.close()


def test_writes_from_another_process_show_up_and_deletes_never_do(big, tmp_path) -> None:  # type: ignore[no-untyped-def]
    src, _items, vectors = big
    path = tmp_path / "brain.db"
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{src}{suffix}").exists():
            Path(f"{path}{suffix}").write_bytes(Path(f"{src}{suffix}").read_bytes())
    (tmp_path / "brain.vectors").mkdir()
    for f in (src.parent / "brain.vectors").iterdir():
        (tmp_path / "brain.vectors" / f.name).write_bytes(f.read_bytes())
    store = SQLiteStore(path)
    try:
        index = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        ann = index.vectors[CHUNK]
        assert isinstance(ann, AnnVectorIndex)
        # A base row's own vector finds it; then another process deletes it.
        assert index.nearest(CHUNK, vectors[41], ALL, 1)[0].id == 42
        new = units(np.random.default_rng(9), 1)[0]
        script = (
            "import sqlite3, sys, json\n"
            "c = sqlite3.connect(sys.argv[1]); v = bytes.fromhex(sys.argv[2])\n"
            f"c.execute({INSERT!r}, ('chunk', 90001, 90001, 0, 'm', {DIM}, 'new', v))\n"
            "c.execute('DELETE FROM embeddings WHERE kind = ? AND item_id = ?', ('chunk', 42))\n"
            "c.commit()\n"
        )
        subprocess.run([sys.executable, "-c", script, str(path), new.astype("<f4").tobytes().hex()],
                       check=True)
        assert index.nearest(CHUNK, new, ALL, 1)[0].id == 90001  # the delta, exact
        assert 42 not in {h.id for h in index.nearest(CHUNK, vectors[41], ALL, 50)}
        assert index.vector_count(CHUNK) == 20_000  # +1 -1
        # A rebuild folds the delta in and still never returns the deleted row.
        meta = ann.build()
        assert meta is not None and meta.generation == 2 and meta.count == 20_000
        assert ann.base_meta == meta
        assert index.nearest(CHUNK, new, ALL, 1)[0].id == 90001
        assert 42 not in {h.id for h in index.nearest(CHUNK, vectors[41], ALL, 50)}
    finally:
        store.close()


def small_brain(tmp_path: Path, n: int = 400) -> tuple[SQLiteStore, np.ndarray]:
    store = SQLiteStore(tmp_path / "brain.db")
    vectors = units(np.random.default_rng(1), n)
    add_rows(store, CHUNK, np.arange(1, n + 1), vectors)
    return store, vectors


def test_a_crash_mid_rebuild_leaves_a_usable_index(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store, vectors = small_brain(tmp_path)
    try:
        index = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        ann = index.vectors[CHUNK]
        assert isinstance(ann, AnnVectorIndex)
        first = ann.build()
        assert first is not None
        files = ann.files
        # A builder died after writing part of the next generation, before its metadata.
        (files.directory / f"{files.stem}.2.usearch.tmp").write_bytes(b"\0" * 1000)
        (files.directory / f"{files.stem}.2.rows.npy").write_bytes(b"half")
        fresh = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        assert fresh.nearest(CHUNK, vectors[7], ALL, 1)[0].id == 8
        assert fresh.vectors[CHUNK].base_meta == first  # type: ignore[union-attr]
        # Metadata naming a truncated file (torn write) is ignored: exact search answers.
        raw = json.loads(files.meta_path.read_text())
        raw["index_bytes"] += 1
        files.meta_path.write_text(json.dumps(raw))
        third = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        assert third.nearest(CHUNK, vectors[7], ALL, 1)[0].id == 8
        assert third.vectors[CHUNK].base_meta is None  # type: ignore[union-attr]
        # The next build starts over, sweeps the leftovers and is used again.
        again = third.vectors[CHUNK].build()  # type: ignore[union-attr]
        assert again is not None and again.count == len(vectors)
        assert not list(files.directory.glob("*.tmp"))
        assert third.nearest(CHUNK, vectors[7], ALL, 1)[0].id == 8
    finally:
        store.close()


def test_a_model_switch_ignores_the_old_base_and_builds_its_own(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store, _ = small_brain(tmp_path)
    try:
        old = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM).vectors[CHUNK]
        assert isinstance(old, AnnVectorIndex) and old.build() is not None
        other = units(np.random.default_rng(2), 50, dim=16)
        add_rows(store, CHUNK, np.arange(1001, 1051), other, model="m2")
        switched = SQLiteSearchIndex(store.db, "default", model="m2", dim=16)
        ann = switched.vectors[CHUNK]
        assert isinstance(ann, AnnVectorIndex)
        ann.sync()
        assert ann.base_meta is None and len(ann) == 50
        assert switched.nearest(CHUNK, other[3], ALL, 1)[0].id == 1004
        # Metadata claiming another model for these files is not trusted either.
        files = BaseFiles(ann.files.directory, source_id="default", kind=CHUNK, model="m2",
                          dim=16)
        raw = json.loads(old.files.meta_path.read_text())
        files.meta_path.write_text(json.dumps(raw))  # the old space's content, new name
        assert files.read_meta() is None
        meta = ann.build()
        assert meta is not None and (meta.model, meta.dim, meta.count) == ("m2", 16, 50)
        assert switched.nearest(CHUNK, other[3], ALL, 1)[0].id == 1004
    finally:
        store.close()


def test_a_tenant_with_1_percent_of_the_memories_gets_its_exact_top_k(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = SQLiteStore(tmp_path / "brain.db")
    try:
        rng = np.random.default_rng(4)
        orgs = ["small" if i % 100 == 0 else "big" for i in range(3_000)]
        with store.transaction():
            ids = np.array([
                insert_memory(store, MemoryDraft(text=f"m{i}", agent_id="a", org_id=org,
                                                 scope="public"), ts(1)).id
                for i, org in enumerate(orgs)
            ])
        vectors = units(rng, len(ids))
        add_rows(store, MEMORY, ids, vectors)
        index = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        ann = index.vectors[MEMORY]
        assert isinstance(ann, AnnVectorIndex) and ann.build() is not None
        mine = np.array([o == "small" for o in orgs])
        grpc = MemoryFilter(source_id="default", reader="b", now=ts(5), org_id="small")
        mcp = FactFilter(now=ts(5), scope=ReadScope(org_id="small", trusted=True))
        for q in units(rng, 10):
            want = exact(ids[mine], vectors[mine], q, K)
            for scope in (grpc, mcp):
                assert [h.id for h in index.nearest(MEMORY, q, scope, K)] == want
    finally:
        store.close()


def test_build_vector_indexes_builds_a_missing_base_once(big, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path, _, _ = big  # closed by its fixture: the rows are all in the main file
    copy = tmp_path / "brain.db"
    copy.write_bytes(path.read_bytes())  # the rows, not the base beside the original
    store = SQLiteStore(copy)
    try:
        index = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
        assert index.build_vector_indexes() == {CHUNK: 20_000}  # memories: too few to index
        ann = index.vectors[CHUNK]
        assert isinstance(ann, AnnVectorIndex) and ann.base_meta is not None
        assert index.build_vector_indexes() == {}  # up to date: nothing to rebuild
    finally:
        store.close()

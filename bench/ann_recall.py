"""ANN index vs exact search on a benchmark corpus: recall@10, latency, build time, memory.

    nice -n 10 python bench/ann_recall.py [--corpus ~/.cache/brainkeep-bench/corpus-20k]
        [--queries 200] [--crossover 5000,10000,20000,40000] [--reuse-base]

Copies the corpus's brain.db to a temp dir (the corpus is never modified),
then per kind (chunks, memories):

- exact: a fresh process opens the brain with the ANN base absent and runs
  ``SQLiteSearchIndex.nearest`` (the exact numpy ``VectorIndex``): first
  search (includes loading every vector), p50/p99, resident memory;
- build: ``AnnVectorIndex.build()`` (usearch HNSW, f16, 2 threads), timed;
  with ``--reuse-base`` the corpus's own ``brain.vectors/`` (built there
  before, e.g. on a copy of corpus-200k) is copied instead of building again;
- ANN: a fresh process with the base present: first search, p50/p99,
  recall@10 against exact, resident memory (anonymous = private to the
  process, file = mapped pages shared through the page cache); then a second
  process on the same brain while the first is still open.

Queries are stored vectors of the other kind (real text embeddings: a
memory's vector queries the chunk index and the other way round). Also a
crossover table: exact numpy vs a usearch graph of the same parameters on
the first n chunk vectors, to place ``ANN_MIN_ROWS``. Prints the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from brainkeep.core.query import PageScope
from brainkeep.core.retrieval import CHUNK, MEMORY
from brainkeep.store.sqlite import SQLiteStore
from brainkeep.store.sqlite.ann_files import new_graph
from brainkeep.store.sqlite.ann_index import AnnVectorIndex
from brainkeep.store.sqlite.search_index import SQLiteSearchIndex
from brainkeep.store.sqlite.vector_index import SQLiteVectorRows

K = 10
OTHER = {CHUNK: MEMORY, MEMORY: CHUNK}


def _space(store: SQLiteStore) -> tuple[str, int]:
    row = store.db.one("SELECT model, dim FROM embeddings LIMIT 1")
    assert row is not None, "the corpus has no vectors"
    return str(row[0]), int(row[1])


def _vectors(store: SQLiteStore, kind: str, model: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
    batch = SQLiteVectorRows(store.db).load_embeddings("default", kind, model, dim, after_id=0,
                                                      limit=10**9)
    return (np.asarray(batch.item_ids),
            np.frombuffer(batch.vectors, dtype=np.float32).reshape(len(batch), dim))


def _memory() -> dict[str, float]:
    status = Path("/proc/self/status").read_text().splitlines()
    fields = dict(line.split(":", 1) for line in status)
    return {name: int(fields[name].split()[0]) / 1024 for name in ("VmRSS", "RssAnon", "RssFile")}


def child(db: str, kind: str, queries_file: str, hold: str | None) -> None:
    """One 'process': open the brain, search every query, print timings and memory."""
    queries = np.load(queries_file)
    store = SQLiteStore(db)
    model, dim = _space(store)
    index = SQLiteSearchIndex(store.db, "default", model=model, dim=dim)
    vectors = index.vectors[kind]
    if isinstance(vectors, AnnVectorIndex):
        vectors.background = False  # measure what is there; never start a build here
    scope = PageScope(include_private=True) if kind == CHUNK else None
    t = time.perf_counter()
    first = index.nearest(kind, queries[0], scope, K)
    first_ms = (time.perf_counter() - t) * 1e3
    lat, found = [], [[h.id for h in first]]
    for q in queries[1:]:
        t = time.perf_counter()
        found.append([h.id for h in index.nearest(kind, q, scope, K)])
        lat.append((time.perf_counter() - t) * 1e3)
    lat.sort()
    out = {"first_ms": first_ms, "p50": statistics.median(lat),
           "p99": lat[int(0.99 * (len(lat) - 1))], "found": found,
           "ann": isinstance(vectors, AnnVectorIndex) and vectors.base_meta is not None,
           **_memory()}
    print(json.dumps(out), flush=True)
    if hold:  # stay open (mappings live) until the parent has measured a second process
        while not Path(hold).exists():
            time.sleep(0.05)
    store.close()


def _spawn(db: str, kind: str, queries: str, hold: str | None = None) -> subprocess.Popen[str]:
    args = [sys.executable, __file__, "--child", kind, "--db", db, "--queries-file", queries]
    if hold:
        args += ["--hold", hold]
    return subprocess.Popen(args, stdout=subprocess.PIPE, text=True)


def _read(proc: subprocess.Popen[str]) -> dict:
    assert proc.stdout is not None
    return json.loads(proc.stdout.readline())


def _recall(found: list[list[int]], truth: list[list[int]]) -> float:
    return float(np.mean([len(set(f) & set(t)) / K for f, t in zip(found, truth, strict=True)]))


def _row(name: str, r: dict) -> str:
    return (f"  {name:<22} first {r['first_ms']:8.1f} ms  p50 {r['p50']:6.2f} ms  "
            f"p99 {r['p99']:6.2f} ms  RSS {r['VmRSS']:6.0f} MiB "
            f"(anon {r['RssAnon']:.0f}, file {r['RssFile']:.0f})")


def crossover(vectors: np.ndarray, queries: np.ndarray, sizes: list[int]) -> None:
    print("crossover (chunk vectors, k=10): n, exact p50, ANN p50, ANN build")
    for n in sizes:
        if n > len(vectors):
            break
        x = vectors[:n]
        graph = new_graph(x.shape[1])
        t = time.perf_counter()
        graph.add(np.arange(n), x, threads=2)
        build = time.perf_counter() - t
        ex, an = [], []
        for q in queries[:100]:
            t = time.perf_counter()
            s = x @ q
            np.argpartition(-s, K)[:K]
            ex.append((time.perf_counter() - t) * 1e3)
            t = time.perf_counter()
            graph.search(q, 2 * K)
            an.append((time.perf_counter() - t) * 1e3)
        print(f"  {n:>7,}  exact {statistics.median(ex):6.3f} ms  ANN {statistics.median(an):6.3f}"
              f" ms  build {build:5.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path,
                    default=Path("~/.cache/brainkeep-bench/corpus-20k").expanduser())
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--crossover", default="5000,10000,20000,40000")
    ap.add_argument("--reuse-base", action="store_true",
                    help="copy the corpus's brain.vectors/ instead of building a base")
    ap.add_argument("--child")
    ap.add_argument("--db")
    ap.add_argument("--queries-file")
    ap.add_argument("--hold")
    args = ap.parse_args()
    if args.child:
        child(args.db, args.child, args.queries_file, args.hold)
        return
    print(f"load average {os.getloadavg()[0]:.2f}; corpus {args.corpus}")
    work = Path(tempfile.mkdtemp(prefix="ann-bench-"))
    try:
        db = work / "brain.db"
        for name in ("brain.db", "brain.db-wal"):  # the WAL may hold committed rows
            if (args.corpus / name).exists():
                shutil.copyfile(args.corpus / name, work / name)
        store = SQLiteStore(db)
        model, dim = _space(store)
        rng = np.random.default_rng(0)
        for kind in (CHUNK, MEMORY):
            items, vectors = _vectors(store, kind, model, dim)
            _, others = _vectors(store, OTHER[kind], model, dim)
            queries = others[rng.choice(len(others), args.queries, replace=False)]
            qfile = str(work / f"q-{kind}.npy")
            np.save(qfile, queries)
            truth = [[int(items[i]) for i in np.argsort(-(vectors @ q), kind="stable")[:K]]
                     for q in queries]
            print(f"{kind}: {len(items):,} vectors x {dim}")
            shutil.rmtree(work / "brain.vectors", ignore_errors=True)
            exact = _read(_spawn(str(db), kind, qfile))
            assert not exact["ann"]
            exact_recall = _recall(exact["found"], truth)
            print(_row("exact (numpy)", exact) + f"  recall@10 {exact_recall:.4f}")
            index = SQLiteSearchIndex(store.db, "default", model=model, dim=dim)
            ann_index = index.vectors[kind]
            assert isinstance(ann_index, AnnVectorIndex)
            t = time.perf_counter()
            if args.reuse_base:
                shutil.copytree(args.corpus / "brain.vectors", work / "brain.vectors")
                ann_index.sync()
                meta = ann_index.base_meta
                how = "copied"
            else:
                meta = ann_index.build()
                how = "build "
            assert meta is not None, "no usable base (with --reuse-base: build one first)"
            size = sum(f.stat().st_size for f in (work / "brain.vectors").iterdir())
            print(f"  {how}                 {time.perf_counter() - t:8.1f} s   files "
                  f"{size / 2**20:.0f} MiB (all kinds)")
            hold = str(work / f"hold-{kind}")
            one = _spawn(str(db), kind, qfile, hold)
            first = _read(one)
            second = _read(_spawn(str(db), kind, qfile))
            Path(hold).touch()
            one.wait()
            assert first["ann"]
            print(_row("ANN (usearch, mmap)", first)
                  + f"  recall@10 {_recall(first['found'], truth):.4f}")
            print(_row("ANN, second process", second))
        crossover(_vectors(store, CHUNK, model, dim)[1], queries,
                  [int(n) for n in args.crossover.split(",") if n])
        store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

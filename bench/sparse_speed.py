"""Speed of the learned-sparse arm: encoding (backfill, queries) and pruned top-k search.

    python bench/sparse_speed.py [--data ../shared/data/locomo/locomo-dev.json]
        [--texts 2000] [--rows 20000,200000] [--queries 200]

1. Backfill encoding: ``--texts`` LoCoMo turns (short texts, ~48 tokens)
   and as many 6-turn "pages" (~250 tokens), encoded as ``brainkeep embed``
   does (length-sorted batches of 64) on 1 and on 2 worker threads: texts/s
   (wall) and CPU seconds of this process (the machine may be shared).
2. Query encoding: p50/p99 ms of one question at a time.
3. Search: a SQLite brain file holding ``--rows`` chunk vectors (the real
   encodings of the turns, repeated), queried with real questions through
   ``SQLiteSparseIndex.search`` and ``scan`` (every row): p50/p99 ms (wall
   and CPU) and postings read per query. Rows are written straight into the
   index tables (no pages: the speed of the index alone), then
   ``index.prune()`` runs as at the end of ``brainkeep embed`` (it builds the
   postings blocks: its time is printed).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from locomo_support import DEFAULT_DATA, load

from brainkeep.core.query import PageScope
from brainkeep.core.retrieval import CHUNK
from brainkeep.core.sparse_terms import SparseTerms
from brainkeep.providers.sparse_encoder import SparseEncoder
from brainkeep.store.sqlite import SQLiteStore
from brainkeep.store.sqlite.sparse_index import SQLiteSparseIndex, pack, unpack

BATCH = 64


def encode_all(encoder: SparseEncoder, texts: list[str], workers: int) -> tuple[float, float]:
    ordered = sorted(texts, key=len)
    batches = [ordered[i : i + BATCH] for i in range(0, len(ordered), BATCH)]
    wall, cpu = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(encoder.encode, batches))
    return time.perf_counter() - wall, time.process_time() - cpu


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--rows", default="20000,200000")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    convs = load(args.data)
    turns = [t.text for c in convs for t in c.turns]
    questions = [q.text for c in convs for q in c.questions][: args.queries]
    short = turns[: args.texts]
    pages = [" ".join(turns[i : i + 6]) for i in range(0, 6 * args.texts, 6)][: args.texts]
    encoder = SparseEncoder()
    encoder.encode(["warm up"])
    print("1. backfill encoding (texts/s wall, CPU s of this process)")
    for name, texts in (("turns", short), ("6-turn pages", pages)):
        for workers in (1, 2):
            wall, cpu = encode_all(encoder, texts, workers)
            print(f"   {name:13} x{len(texts)}  workers {workers}: {len(texts) / wall:6.1f} "
                  f"texts/s  ({wall:.1f} s wall, {cpu:.1f} s CPU, "
                  f"{1000 * cpu / len(texts):.1f} ms CPU/text)")
    times = []
    vectors = []
    for q in questions:
        started = time.perf_counter()
        vectors.append(encoder.encode([q])[0])
        times.append((time.perf_counter() - started) * 1000)
    print(f"2. query encoding: p50 {pct(times, 50):.2f} ms, p99 {pct(times, 99):.2f} ms; "
          f"{statistics.mean(len(v.terms) for v in vectors):.1f} terms per query")
    encoded = encoder.encode(turns)
    print(f"   {statistics.mean(len(v.terms) for v in encoded):.1f} terms per turn")
    queries = [SparseTerms(v.terms, v.weights) for v in vectors]
    for rows in (int(r) for r in args.rows.split(",") if r):
        search_bench(rows, [SparseTerms(v.terms, v.weights) for v in encoded], queries)


def search_bench(rows: int, encoded: list[SparseTerms], queries: list[SparseTerms]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(str(Path(tmp) / "brain.db"))
        db = store.db
        started = time.perf_counter()
        with store.transaction():
            forward, postings = [], []
            for item in range(1, rows + 1):
                blob = pack(encoded[item % len(encoded)])
                forward.append(("chunk", item, "default", item, 0, "bench", "h", blob))
                terms, impacts = unpack(blob)
                postings.extend(("chunk", int(t), int(i), item)
                                for t, i in zip(terms, impacts, strict=True))
                if len(postings) > 200_000:
                    db.executemany("INSERT INTO sparse_postings VALUES (?, ?, ?, ?)", postings)
                    postings.clear()
            db.executemany("INSERT INTO sparse_vectors (kind, item_id, source_id, page_id, "
                           "private, model, text_hash, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           forward)
            db.executemany("INSERT INTO sparse_postings VALUES (?, ?, ?, ?)", postings)
        built = time.perf_counter() - started
        index = SQLiteSparseIndex(db, "default", "bench")
        total = int(db.scalar("SELECT COUNT(*) FROM sparse_postings"))
        wall, cpu = time.perf_counter(), time.process_time()
        index.prune()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        size = (Path(tmp) / "brain.db").stat().st_size
        print(f"3. {rows:,} rows: {total:,} postings, file {size / 1_048_576:.0f} MiB "
              f"(written in {built:.0f} s; prune {wall:.2f} s wall, {cpu:.2f} s CPU)")
        for k in (30, 90):
            ms, cpus, read = [], [], []
            for q in queries:
                began, cpu = time.perf_counter(), time.process_time()
                index.search(CHUNK, q, PageScope(True), k)
                ms.append((time.perf_counter() - began) * 1000)
                cpus.append((time.process_time() - cpu) * 1000)
                read.append(index.last_postings_read)
            print(f"   top {k}: p50 {pct(ms, 50):.1f} ms, p99 {pct(ms, 99):.1f} ms "
                  f"(CPU mean {statistics.mean(cpus):.1f} ms); postings read "
                  f"{statistics.mean(read):,.0f}")
        ms = []
        for q in queries[:20]:
            began = time.perf_counter()
            index.scan(CHUNK, q, PageScope(True), 30)
            ms.append((time.perf_counter() - began) * 1000)
        print(f"   exhaustive scan (reference): p50 {pct(ms, 50):.0f} ms")
        store.close()


if __name__ == "__main__":
    main()

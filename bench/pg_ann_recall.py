"""PostgreSQL's HNSW indexes against exact search: recall@30, latency, build time.

    nice -n 10 python bench/pg_ann_recall.py [--rows 200000] [--kinds memory,chunk]
        [--vectors derived|model] [--base 10000] [--queries 200] [--k 30]
        [--params 16/64,32/128] [--ef 60,200,400] [--database URL]

For each kind, a fresh database (migrated by ``brainkeep.store.open``) gets
``--rows`` vectors of the local model's space (384 dims) by binary COPY, then
for each ``m/ef_construction`` pair in ``--params`` the kind's partial HNSW
index is built again (the same expression and predicate as migration 0005/0018)
and timed, and for each ``ef_search`` in ``--ef`` every query runs through the
engine's own ``VectorSearch.indexed`` (iterative scan, as recall runs it).
recall@k = |HNSW top k ∩ exact top k| / k, the exact answer from numpy over
the same matrix. The row of the engine's current setting (migration 0018's
parameters, ``nearest.EF_SEARCH`` of the kind) is marked ``<- shipped``.

Vectors (``--vectors``):

- ``derived`` (default): ``--base`` texts of the kind, written like the bench
  corpus's (``bench/seed_corpus.py``: templated facts for memories, page
  bodies for chunks), embedded with the real model; every row is one of them
  plus Gaussian noise (``scale_corpus.NOISE``, cosine ~0.95), renormalised —
  the construction of the 200K bench corpus (``bench/scale_corpus.py``), with
  ``rows / base`` near-duplicates per real vector.
- ``model``: ``--rows`` texts embedded with the real model (about 80 texts per
  CPU-second: keep ``--rows`` modest).

Queries are further texts of the same kind (model) or further noisy copies
(derived), never rows of the index. Prints the load average and CPU seconds.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pg_support import server  # noqa: E402
from scale_corpus import NOISE  # noqa: E402
from seed_corpus import _memory, page_identity, page_markdown  # noqa: E402

import brainkeep.store as store_factory  # noqa: E402
from brainkeep.providers.local_embeddings import (  # noqa: E402
    LOCAL_DIMENSIONS,
    LOCAL_MODEL_ID,
    LocalEmbeddingProvider,
)
from brainkeep.store.postgres.nearest import EF_SEARCH, VectorSearch  # noqa: E402

SHIPPED = (32, 128)  # migration 0018
SOURCE = "default"


def texts(kind: str, n: int, offset: int, seed: int = 7) -> list[str]:
    """``n`` texts of ``kind`` shaped like the bench corpus's, from number ``offset`` on."""
    identities = [page_identity(i) for i in range(20_000)]
    rng = random.Random(seed + offset)
    if kind == "memory":
        return [_memory(offset + k, identities, rng).text for k in range(n)]
    return [page_markdown((offset + k) % len(identities), identities, rng) for k in range(n)]


def embed(provider: LocalEmbeddingProvider, items: list[str]) -> np.ndarray:
    out = []
    for i in range(0, len(items), 256):
        out.append(provider.embed(items[i:i + 256]))
        print(f"  embedded {min(i + 256, len(items))}/{len(items)}", end="\r", flush=True)
    print()
    return np.vstack(out).astype(np.float32)


def noisy(base: np.ndarray, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    picks = base[rng.integers(0, len(base), n)].astype(np.float64)
    picks += rng.normal(0.0, NOISE, picks.shape)
    return (picks / np.linalg.norm(picks, axis=1, keepdims=True)).astype(np.float32)


def vectors(kind: str, args: argparse.Namespace,
            provider: LocalEmbeddingProvider) -> tuple[np.ndarray, np.ndarray]:
    """(rows, queries) unit vectors for ``kind``."""
    if args.vectors == "model":
        rows = embed(provider, texts(kind, args.rows, 0))
        return rows, embed(provider, texts(kind, args.queries, 10_000_000))
    base = embed(provider, texts(kind, args.base, 0))
    return noisy(base, args.rows, 1), noisy(base, args.queries, 2)


def connect(url: str) -> psycopg.Connection:
    conn = psycopg.connect(url)
    register_vector(conn)
    return conn


def load(url: str, kind: str, rows: np.ndarray) -> float:
    """COPY ``rows`` into ``embeddings`` (no HNSW index present); seconds taken."""
    started = time.perf_counter()
    with connect(url) as conn:
        with conn.cursor().copy(
            "COPY embeddings (kind, item_id, source_id, private, model, dim, text_hash, vector) "
            "FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["text", "int8", "text", "int4", "text", "int4", "text", "vector"])
            for i, vec in enumerate(rows):
                copy.write_row((kind, i + 1, SOURCE, 0, LOCAL_MODEL_ID, LOCAL_DIMENSIONS,
                                f"h{i}", vec))
        conn.commit()
    return time.perf_counter() - started


def build(url: str, kind: str, m: int, efc: int) -> float:
    """(Re)build the kind's partial HNSW index with ``m``/``efc``; seconds taken."""
    d = LOCAL_DIMENSIONS
    started = time.perf_counter()
    with connect(url) as conn:
        conn.execute(f"DROP INDEX IF EXISTS embeddings_hnsw_{d}_{kind}")
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute(
            f"CREATE INDEX embeddings_hnsw_{d}_{kind} ON embeddings USING hnsw "
            f"((vector::vector({d})) vector_cosine_ops) WITH (m = {m}, ef_construction = {efc}) "
            f"WHERE dim = {d} AND kind = '{kind}'")
        conn.execute("ANALYZE embeddings")
        conn.commit()
    return time.perf_counter() - started


def measure(search: VectorSearch, rows: np.ndarray, queries: np.ndarray, k: int,
            ef: int) -> tuple[float, float, float]:
    """(recall@k, p50 ms, p99 ms) of the HNSW search at ``ef``."""
    recalls, times = [], []
    for q in queries:
        exact = set((np.argpartition(-(rows @ q), k)[:k] + 1).tolist())
        started = time.perf_counter()
        hits = search.indexed(q, k, include_private=False, ef_search=ef)
        times.append((time.perf_counter() - started) * 1000)
        recalls.append(len(exact & {h.item_id for h in hits}) / k)
    times.sort()
    return (statistics.fmean(recalls), times[len(times) // 2],
            times[min(len(times) - 1, int(len(times) * 0.99))])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--kinds", default="memory,chunk")
    ap.add_argument("--vectors", choices=("derived", "model"), default="derived")
    ap.add_argument("--base", type=int, default=10_000, help="real vectors behind derived rows")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=30)
    ap.add_argument("--params", default="16/64,32/128", help="m/ef_construction pairs")
    ap.add_argument("--ef", default="60,200,400", help="ef_search values")
    ap.add_argument("--database", help="a server URL allowed to CREATE DATABASE")
    args = ap.parse_args()
    pg = server(args.database)
    provider = LocalEmbeddingProvider()
    cpu0 = time.process_time()
    print(f"server: {pg.label} (PostgreSQL {pg.version()}), rows {args.rows:,} "
          f"({args.vectors}), queries {args.queries}, k {args.k}")
    for kind in args.kinds.split(","):
        rows, queries = vectors(kind, args, provider)
        url = pg.create_database(f"bk_ann_{kind}")
        st = store_factory.open(url)
        try:
            with connect(url) as conn:
                conn.execute(f"DROP INDEX IF EXISTS embeddings_hnsw_{LOCAL_DIMENSIONS}_{kind}")
            print(f"{kind}: loaded {len(rows):,} rows in {load(url, kind, rows):.1f} s")
            engine = st.db  # type: ignore[attr-defined]
            search = VectorSearch(engine, source_id=SOURCE, kind=kind, model=LOCAL_MODEL_ID,
                                  dim=LOCAL_DIMENSIONS)
            for pair in args.params.split(","):
                m, efc = (int(x) for x in pair.split("/"))
                print(f"{kind}: m {m} / ef_construction {efc}: built in "
                      f"{build(url, kind, m, efc):.1f} s")
                for ef in (int(x) for x in args.ef.split(",")):
                    recall, p50, p99 = measure(search, rows, queries, args.k, ef)
                    mark = "  <- shipped" if (m, efc) == SHIPPED and ef == EF_SEARCH[kind] else ""
                    print(f"  ef_search {ef:4d}: recall@{args.k} {recall:.3f}  "
                          f"p50 {p50:.1f} ms  p99 {p99:.1f} ms{mark}")
        finally:
            st.close()
            pg.drop_database(f"bk_ann_{kind}")
    server_cpu = pg.cpu_seconds()
    print(f"bench CPU {time.process_time() - cpu0:.1f} s; server CPU "
          f"{'n/a' if server_cpu is None else f'{server_cpu:.1f} s'}; "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

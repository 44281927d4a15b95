"""Exact vector search cost vs. matrix size: the numbers behind "numpy, no ANN index".

    python bench/vector_search.py [--sizes 10000,40000,80000,200000,400000]

Fills ``store.sqlite.vector_index.VectorIndex`` (the class recall uses) from an in-memory
source with random 384-dim unit vectors and times ``search(query, k=90)``:
one float32 matrix-vector product, the privacy mask, and a partial sort.
Also prints the time to load the rows (from bytes, as they come out of
SQLite) and the matrix size in memory. No model and no database involved, so
the numbers isolate the vector arm.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from brainkeep.core.retrieval import StoredEmbeddings
from brainkeep.store.sqlite.vector_index import VectorIndex

DIM = 384
QUERIES = 200


class MemorySource:
    """A VectorSource over prepared rows (no SQLite): isolates the index's own cost."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors

    def in_transaction(self) -> bool:
        return False

    def embedding_watermark(self) -> tuple[int, int]:
        return len(self.vectors), 0

    def load_embeddings(self, source_id: str, kind: str, model: str, dim: int, *,
                        after_id: int, limit: int) -> StoredEmbeddings:
        rows = self.vectors[after_id : after_id + limit]
        ids = tuple(range(after_id + 1, after_id + len(rows) + 1))
        return StoredEmbeddings(ids, ids, tuple(i // 2 for i in ids),
                                tuple(i % 50 == 0 for i in ids), rows.tobytes())

    def embedding_tombstones(self, after_seq: int) -> tuple[int | None, list[tuple[int, int]]]:
        return None, []


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,40000,80000,200000,400000")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}, numpy {np.__version__}")
    print(f"{'rows':>8}{'MiB':>7}{'load ms':>9}{'p50 ms':>8}{'p99 ms':>8}{'mean':>7}")
    rng = np.random.default_rng(3)
    for size in (int(s) for s in args.sizes.split(",")):
        vectors = rng.standard_normal((size, DIM), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        index = VectorIndex(MemorySource(vectors), source_id="default", kind="chunk",
                            model="bench", dim=DIM)
        started = time.perf_counter()
        index.sync()
        load_ms = (time.perf_counter() - started) * 1000
        queries = rng.standard_normal((QUERIES, DIM), dtype=np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        index.search(queries[0], 90, include_private=False)  # warm
        timings = []
        for query in queries:
            started = time.perf_counter()
            index.search(query, 90, include_private=False)
            timings.append((time.perf_counter() - started) * 1000)
        print(f"{size:>8}{vectors.nbytes / 1_048_576:>7.0f}{load_ms:>9.0f}{pct(timings, .5):>8.2f}"
              f"{pct(timings, .99):>8.2f}{statistics.mean(timings):>7.2f}")


if __name__ == "__main__":
    main()

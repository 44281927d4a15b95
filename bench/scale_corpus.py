"""The 200K benchmark corpus, built once and cached with a vector for every row.

    python bench/scale_corpus.py [--out ~/.cache/brainkeep-bench/corpus-200k]
        [--vectors derived|model] [--scale 10] [--pages-from DIR] [--log FILE]

Step 1, pages: ``bench/seed_corpus.build_corpus`` at ``--scale 10`` (200,000
pages, 1,000,000 links, ~400K chunks, 400,000 memories), or a copy (SQLite
backup API) of a finished ``seed_corpus.py --scale 10 --out DIR --manifest
DIR/manifest.json`` build with ``--pages-from DIR``. Step 2, vectors for every
live chunk and memory, written through the store's own ``put_embeddings`` in
the local model's space (``all-MiniLM-L6-v2-onnx-int8``, 384 dims), so every
bench loading the brain with the local provider searches them:

- ``--vectors model``: the real model through the same backfill as
  ``brainkeep embed``. ~800K texts: about an hour of both cores.
- ``--vectors derived`` (default): no model run. A row whose embedded text
  (``core.embedding.task_text``) also occurs in the 20K corpus
  (``--base``) gets that text's real vector; every other row gets the real
  vector of a 20K-corpus row of the same kind, picked by the row's text hash,
  plus Gaussian noise (``NOISE`` per dimension: cosine ~0.95 to its base),
  renormalised. The result has the shape of real data — unit vectors in the
  model's space, clustered as real texts are — so **latency, memory and ANN
  recall measured on it are meaningful; retrieval-quality numbers (is the
  right page first?) are not**: a vector is not the embedding of its own text.

The brain's ``meta`` records the mode (``bench.vectors``: ``model`` or
``derived``), and ``bench-manifest.json`` beside ``brain.db`` holds the
counts. Re-running reuses a complete corpus (prints READY and exits); an
interrupted vector step resumes; an interrupted page build starts over.
Progress goes to ``--log`` (default ``/tmp/notes/scale_corpus.log``), ending
with ``READY <path> <counts>``.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from seed_corpus import build_corpus  # noqa: E402

from brainkeep.brain import Brain, open_brain  # noqa: E402
from brainkeep.config import load_settings  # noqa: E402
from brainkeep.core.embedding import (  # noqa: E402
    SPACE_DIM_KEY,
    SPACE_MODEL_KEY,
    task_text,
    text_hash,
)
from brainkeep.core.embedding_jobs import backfill, plan_backfill  # noqa: E402
from brainkeep.core.retrieval import CHUNK, MEMORY, NewEmbedding  # noqa: E402
from brainkeep.providers.local_embeddings import (  # noqa: E402
    LOCAL_DIMENSIONS,
    LOCAL_MODEL_ID,
    LocalEmbeddingProvider,
)

CACHE = Path.home() / ".cache" / "brainkeep-bench"
DEFAULT_OUT = CACHE / "corpus-200k"
DEFAULT_BASE = CACHE / "corpus-20k"
MANIFEST = "bench-manifest.json"
MODE_KEY = "bench.vectors"
# Per-dimension noise: |noise| ~ 0.3 against a unit base vector, cosine ~0.95.
NOISE = 0.016
BATCH = 5_000
SOURCE = "default"


class Log:
    """Progress lines to stdout and the shared log file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO = path.open("a", encoding="utf-8")

    def __call__(self, message: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {message}"
        print(line, flush=True)
        self._file.write(line + "\n")
        self._file.flush()


def build_pages(out: Path, scale: float, seed: int, pages_from: Path | None,
                log: Log) -> dict[str, Any]:
    """Step 1; returns the seed manifest."""
    db = out / "brain.db"
    for leftover in (db, out / "brain.db-wal", out / "brain.db-shm"):
        leftover.unlink(missing_ok=True)  # an interrupted page build starts over
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if pages_from is not None:
        manifest: dict[str, Any] = json.loads((pages_from / "manifest.json").read_text())
        if manifest.get("scale") != scale or manifest.get("seed") != seed:
            raise SystemExit(f"{pages_from} was built with scale {manifest.get('scale')}, "
                             f"seed {manifest.get('seed')}; wanted {scale}, {seed}")
        log(f"pages: copying {pages_from / 'brain.db'} (SQLite backup API)")
        source = sqlite3.connect(f"file:{pages_from / 'brain.db'}?mode=ro", uri=True)
        target = sqlite3.connect(db)
        source.backup(target, pages=65_536)
        target.close()
        source.close()
        manifest["path"] = str(db)
        manifest["copied_from"] = str(pages_from)
    else:
        log(f"pages: building scale {scale} (seed {seed}) into {db}")
        manifest = build_corpus(out, scale, seed)
    log(f"pages: done in {time.perf_counter() - started:.0f} s: {manifest['counts']}")
    return manifest


def base_vectors(base: Path) -> tuple[dict[str, bytes], dict[str, np.ndarray]]:
    """The 20K corpus' real vectors: by text hash, and as one matrix per kind."""
    conn = sqlite3.connect(f"file:{base / 'brain.db'}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT kind, text_hash, vector FROM embeddings WHERE model = ? AND dim = ? "
            "ORDER BY id", (LOCAL_MODEL_ID, LOCAL_DIMENSIONS)).fetchall()
    finally:
        conn.close()
    if not rows:
        raise SystemExit(f"{base} has no {LOCAL_MODEL_ID} vectors: run bench/recall_query.py")
    by_hash = {h: v for _, h, v in rows}
    matrices = {
        kind: np.frombuffer(b"".join(v for k, _, v in rows if k == kind),
                            dtype="<f4").reshape(-1, LOCAL_DIMENSIONS)
        for kind in (CHUNK, MEMORY)
    }
    return by_hash, matrices


def derive(digest: str, matrix: np.ndarray) -> bytes:
    """A real vector picked by ``digest``, plus noise seeded by it, unit length."""
    seed = int(digest[:16], 16)
    pick = matrix[seed % len(matrix)].astype(np.float64)
    noisy = pick + np.random.default_rng(seed).normal(0.0, NOISE, LOCAL_DIMENSIONS)
    return (noisy / np.linalg.norm(noisy)).astype("<f4").tobytes()


def derived_vectors(brain: Brain, base: Path, log: Log) -> dict[str, int]:
    """Step 2, ``derived``: resumable (only rows without a vector are written)."""
    by_hash, matrices = base_vectors(base)
    log(f"vectors: base {len(by_hash):,} real vectors from {base}")
    store = brain.store
    total = sum(store.count_missing_embeddings(SOURCE, LOCAL_MODEL_ID, LOCAL_DIMENSIONS).values())
    done = exact = 0
    started = last = time.perf_counter()
    for kind in (CHUNK, MEMORY):
        after = 0
        while True:
            tasks = store.missing_embeddings(SOURCE, kind, LOCAL_MODEL_ID, LOCAL_DIMENSIONS,
                                             after_item=after, limit=BATCH)
            if not tasks:
                break
            rows = []
            for task in tasks:
                digest = text_hash(task_text(task))
                blob = by_hash.get(digest)
                exact += blob is not None
                rows.append(NewEmbedding(
                    task.kind, task.item_id, SOURCE, task.page_id, task.private, LOCAL_MODEL_ID,
                    LOCAL_DIMENSIONS, digest, blob or derive(digest, matrices[kind])))
            with store.transaction():
                store.put_embeddings(rows)
            done += len(tasks)
            after = tasks[-1].item_id
            if time.perf_counter() - last > 30:
                last = time.perf_counter()
                log(f"vectors: {done:,}/{total:,} ({done / (last - started):,.0f} rows/s)")
    with store.transaction():
        store.set_meta(SPACE_MODEL_KEY, LOCAL_MODEL_ID)
        store.set_meta(SPACE_DIM_KEY, str(LOCAL_DIMENSIONS))
    log(f"vectors: {done:,} rows in {time.perf_counter() - started:.0f} s "
        f"({exact:,} with their text's real vector)")
    return {"written": done, "exact": exact}


def model_vectors(brain: Brain, log: Log) -> dict[str, int]:
    """Step 2, ``model``: ``brainkeep embed``'s backfill (resumable)."""
    assert brain.embeddings is not None
    plan = plan_backfill(brain.embeddings)
    log(f"vectors: embedding {plan.total:,} texts with the local model")
    last = [time.perf_counter()]

    def tick(done: int, total: int) -> None:
        if time.perf_counter() - last[0] > 30:
            last[0] = time.perf_counter()
            log(f"vectors: {done:,}/{total:,}")

    report = backfill(brain.embeddings, progress=tick)
    log(f"vectors: {report.embedded:,} embedded, {report.reused:,} reused in "
        f"{report.seconds:.0f} s ({report.texts_per_s:.0f} texts/s)")
    return {"written": report.embedded + report.reused, "exact": report.embedded}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--vectors", choices=("derived", "model"), default="derived")
    parser.add_argument("--scale", type=float, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--base", type=Path, default=DEFAULT_BASE,
                        help="20K corpus with real vectors (derived mode)")
    parser.add_argument("--pages-from", type=Path,
                        help="copy a finished seed_corpus build (DIR/brain.db + DIR/manifest.json)")
    parser.add_argument("--log", type=Path, default=Path("/tmp/notes/scale_corpus.log"))
    args = parser.parse_args()
    log = Log(args.log)
    out: Path = args.out
    manifest_path = out / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else None
    if manifest and manifest.get("vectors", {}).get("complete"):
        if manifest["vectors"]["mode"] != args.vectors:
            raise SystemExit(f"{out} holds {manifest['vectors']['mode']} vectors; remove it "
                             f"to rebuild with {args.vectors}")
        log(f"READY {out / 'brain.db'} {json.dumps(manifest['counts'])} (cached)")
        return
    print(f"cores: {os.cpu_count()}, load average {os.getloadavg()}")
    if manifest is None:
        manifest = build_pages(out, args.scale, args.seed, args.pages_from, log)
        manifest["vectors"] = {"mode": args.vectors, "complete": False}
        manifest_path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    embedder = LocalEmbeddingProvider() if args.vectors == "model" else None
    brain = open_brain(load_settings(out, env={}), embedder=embedder)
    try:
        with brain.store.transaction():
            brain.store.set_meta(MODE_KEY, args.vectors)
        started, cpu = time.perf_counter(), time.process_time()
        if args.vectors == "derived":
            written = derived_vectors(brain, args.base, log)
        else:
            written = model_vectors(brain, log)
        counts = brain.store.counts()
    finally:
        brain.close()
        if embedder is not None:
            embedder.close()
    manifest["counts"] = counts
    manifest["vectors"] = {
        "mode": args.vectors, "complete": True, **written,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "base": str(args.base) if args.vectors == "derived" else None,
        "noise_per_dim": NOISE if args.vectors == "derived" else None,
    }
    manifest["db_size_bytes"] = os.path.getsize(out / "brain.db")
    manifest_path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    log(f"READY {out / 'brain.db'} {json.dumps(counts)}")


if __name__ == "__main__":
    main()

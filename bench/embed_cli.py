"""`brainkeep embed` throughput with the local model, measured through the real CLI.

    python bench/embed_cli.py [--slice 4000] [--corpus DIR] [--code SRC ...]
    python bench/embed_cli.py --scale 0.1          # a freshly built small corpus

Default: copies the 20K corpus (``bench/recall_query.py`` builds it into
``~/.cache/brainkeep-bench/corpus-20k``; the cached brain is never modified)
into a temp home, deletes the vectors of its first ``--slice`` chunks and
first ``--slice`` memories, switches the copy to ``embeddings.provider
local`` and runs ``brainkeep embed --json`` as a subprocess: every deleted
row goes through the model once (the corpus has no repeated text, so
nothing is reused). Printed per run: texts/s as the command reports it
(backfill loop), texts/s end to end (wall time of the whole command: start,
model load, SQLite writes), and the command's CPU time (all its threads), so
a busy machine's noise can be told apart from the code's cost.

``--code SRC`` (repeatable) runs the command with ``PYTHONPATH=SRC``, each on
a fresh copy of the same slice, in the order given: ``--code
/tmp/bk_base/src --code src`` prints before and after in one sitting.

``--scale S`` instead builds a corpus with ``seed_corpus.build_corpus`` (0.1:
2,000 pages, ~4,000 chunks, 4,000 memories) without embeddings and embeds
all of it.

Target (issue 13, this 2-core machine): >= 250 texts/s end to end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

TARGET = 250.0
CORPUS = Path.home() / ".cache" / "brainkeep-bench" / "corpus-20k"


def slice_home(corpus: Path, size: int) -> Path:
    """A temp brain home: a copy of ``corpus`` lacking the vectors of ``size`` rows per kind."""
    home = Path(tempfile.mkdtemp(prefix="bk-embed-bench-"))
    source = sqlite3.connect(f"file:{corpus / 'brain.db'}?mode=ro", uri=True)
    target = sqlite3.connect(home / "brain.db")
    source.backup(target)
    source.close()
    with target:
        for kind, table in (("chunk", "chunks"), ("memory", "memories")):
            target.execute(
                f"DELETE FROM embeddings WHERE kind = ? AND item_id IN "  # noqa: S608
                f"(SELECT id FROM {table} ORDER BY id LIMIT ?)", (kind, size))
    target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    target.close()
    return home


def built_home(scale: float) -> Path:
    from seed_corpus import build_corpus

    home = Path(tempfile.mkdtemp(prefix="bk-embed-bench-"))
    counts = build_corpus(home, scale, 7)["counts"]
    print(f"corpus: built {counts['chunks']:,} chunks, {counts['memories']:,} memories")
    return home


def run_embed(home: Path, code: str | None) -> dict[str, Any]:
    """``brainkeep embed --json`` in ``home``; its report plus wall and CPU time."""
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    if code is not None:
        env["PYTHONPATH"] = str(Path(code).resolve())
    cli = [sys.executable, "-m", "brainkeep"]
    subprocess.run([*cli, "config", "set", "embeddings.provider", "local"], env=env,
                   check=True, capture_output=True)
    # Opening the store applies this code's pending migrations (e.g. a new
    # index over 80K rows): done before the clock starts, it is not embedding.
    subprocess.run([sys.executable, "-c", "import sys; from brainkeep.store.sqlite import "
                    "SQLiteStore; SQLiteStore(sys.argv[1]).close()", str(home / "brain.db")],
                   env=env, check=True, capture_output=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([*cli, "embed", "--json"], env=env, check=True,
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report: dict[str, Any] = json.loads(done.stdout)
    report["wall"] = wall
    report["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--slice", type=int, default=4_000, help="rows per kind to re-embed")
    parser.add_argument("--scale", type=float, help="build a fresh corpus of this scale instead")
    parser.add_argument("--code", action="append",
                        help="PYTHONPATH for the command (repeat to compare checkouts)")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}")
    results = []
    for code in args.code or [None]:
        home = built_home(args.scale) if args.scale else slice_home(args.corpus, args.slice)
        try:
            report = run_embed(home, code)
        finally:
            shutil.rmtree(home, ignore_errors=True)
        rows = report["chunks"] + report["memories"]
        label = code or "this checkout"
        results.append((label, report, rows))
        print(f"{label}: {rows:,} rows ({report['embedded']:,} embedded, {report['reused']:,} "
              f"reused): {report['texts_per_s']:.0f} texts/s in the backfill loop, "
              f"{rows / report['wall']:.0f} texts/s end to end ({report['wall']:.1f} s wall), "
              f"CPU {report['cpu']:.1f} s = {rows / report['cpu']:.0f} texts per CPU-second; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
    if len(results) > 1:
        (first, a, n_a), (last, b, n_b) = results[0], results[-1]
        print(f"{last} vs {first}: end to end x{(n_b / b['wall']) / (n_a / a['wall']):.2f}, "
              f"CPU per text x{(b['cpu'] / n_b) / (a['cpu'] / n_a):.2f}")
    _, report, rows = results[-1]
    verdict = "ok" if rows / report["wall"] >= TARGET else "MISSED"
    print(f"target >= {TARGET:.0f} texts/s end to end: {verdict} "
          "(other work on the machine skews wall time; compare CPU per text)")


if __name__ == "__main__":
    main()

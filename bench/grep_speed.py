"""grep and exact recall latency on the seeded corpus (issue 13: p99 <= 30 ms at 200K pages).

    python bench/grep_speed.py [--scale 10] [--cache DIR] [--calls 200]

Builds the corpus of bench/seed_corpus.py once into ``--cache`` (default
~/.cache/brainkeep-bench/grep-200k for scale 10), copies its brain.db to a
temp folder (the cache is never opened by the code under test: opening it
with new code would migrate it), opens the copy — timing the open, which
runs any pending migration such as 0013's trigram backfill — and measures:

* ``grep``: the MCP recall facts arm with ``grep`` (``FactService.list_facts``,
  a remote stdio caller, limit 50);
* ``exact``: gRPC ``exact`` recall at the store (``memories_containing``, limit 10).
  The store call, not the RPC: the RPC also records reads, which another
  change moves out of the hash chain, and would blur this comparison.

over a fixed mix of needles: a rare note id, a page title, a frequent topic,
a frequent word, a case variant, an accented name, misses, and needles
shorter than three characters. Before/after: build the cache with the old
code, then run this same file under both:

    PYTHONPATH=/tmp/bk_base/src python bench/grep_speed.py
    PYTHONPATH=src python bench/grep_speed.py
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from seed_corpus import build_corpus  # noqa: E402

from brainkeep.brain import open_brain  # noqa: E402
from brainkeep.config import load_settings  # noqa: E402
from brainkeep.core.context import STDIO  # noqa: E402
from brainkeep.core.memory.models import MemoryFilter  # noqa: E402

TARGET_P99_MS = 30.0
WARMUP = 20
MANIFEST = "manifest.json"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def cached_corpus(cache: Path, scale: float) -> dict:
    """The cached corpus' manifest, building it first when missing."""
    manifest_path = cache / MANIFEST
    if manifest_path.exists():
        return json.loads(manifest_path.read_text())
    cache.mkdir(parents=True, exist_ok=True)
    print(f"building the scale-{scale:g} corpus at {cache} (once) ...", flush=True)
    manifest = build_corpus(cache, scale, seed=7)
    manifest_path.write_text(json.dumps(manifest))
    return manifest


def copy_brain(cache: Path, into: Path) -> None:
    """Copy the cached brain with SQLite's backup API (safe even with a WAL beside it)."""
    src = sqlite3.connect(f"file:{cache / 'brain.db'}?mode=ro", uri=True)
    dst = sqlite3.connect(into / "brain.db")
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def needles(manifest: dict, calls: int, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, needle) pairs, kinds in rotation."""
    titles = manifest["sample"]["titles"]
    n_memories = manifest["counts"]["memories"]
    makers = {
        "rare": lambda: f"(note {rng.randrange(n_memories)})",
        "title": lambda: rng.choice(titles),
        "topic": lambda: rng.choice(["billing migration", "security review", "Q3 roadmap",
                                     "on-call rotation", "EU expansion"]),
        "word": lambda: rng.choice(["prefers", "committed", "legal review", "dedicated owner"]),
        "case": lambda: rng.choice(titles).upper(),
        "accent": lambda: rng.choice(["Zoë", "Ramírez", "zoë r"]),
        "miss": lambda: f"zq{rng.randrange(10**6)} nowhere",
        "short": lambda: rng.choice(["Q3", "zz", "EU", "é", "qx"]),
    }
    kinds = list(makers)
    return [(kinds[i % len(kinds)], makers[kinds[i % len(kinds)]]())
            for i in range(WARMUP + calls)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=10, help="10 -> 200K pages (default)")
    parser.add_argument("--cache", type=Path, help="corpus cache folder (built once)")
    parser.add_argument("--calls", type=int, default=200, help="measured calls per path")
    args = parser.parse_args()
    pages_k = round(20 * args.scale)
    cache = args.cache or Path.home() / ".cache" / "brainkeep-bench" / f"grep-{pages_k}k"
    manifest = cached_corpus(cache, args.scale)
    work = Path(tempfile.mkdtemp(prefix="bk-grep-bench-"))
    try:
        started = time.perf_counter()
        copy_brain(cache, work)
        print(f"copied {cache / 'brain.db'} in {time.perf_counter() - started:.1f} s")
        cpu, started = time.process_time(), time.perf_counter()
        brain = open_brain(load_settings(work, env={}))
        print(f"open (runs pending migrations): {time.perf_counter() - started:.1f} s wall, "
              f"{time.process_time() - cpu:.1f} s CPU")
        try:
            run(brain, needles(manifest, args.calls, random.Random(13)))
        finally:
            brain.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(brain, mix: list[tuple[str, str]]) -> None:  # type: ignore[no-untyped-def]
    counts = brain.store.counts()
    print(f"{counts['pages']:,} pages, {counts['memories']:,} memories")
    paths = {
        "grep": lambda needle: brain.facts.list_facts(STDIO, grep=needle, limit=50),
        "exact": lambda needle: brain.store.memories_containing(
            MemoryFilter(source_id=brain.source_id, reader="bench",
                         now=brain.clock.now_ts()), needle, 10),
    }
    for name, call in paths.items():
        by_kind: dict[str, list[float]] = {}
        found = 0
        cpu = time.process_time()
        for i, (kind, needle) in enumerate(mix):
            started = time.perf_counter()
            hits = call(needle)
            elapsed = (time.perf_counter() - started) * 1000
            if i >= WARMUP:
                by_kind.setdefault(kind, []).append(elapsed)
                found += len(hits)
        cpu_ms = (time.process_time() - cpu) * 1000 / len(mix)
        every = [v for values in by_kind.values() for v in values]
        print(f"\n[{name}] {len(every)} calls, {found} rows returned, "
              f"{cpu_ms:.2f} ms CPU per call")
        for kind, values in by_kind.items():
            print(f"  {kind:<7} p50 {pct(values, .5):8.2f} ms   p99 {pct(values, .99):8.2f} ms")
        p99 = pct(every, 0.99)
        print(f"  {'all':<7} p50 {pct(every, .5):8.2f} ms   p99 {p99:8.2f} ms   "
              f"target p99 <= {TARGET_P99_MS:g} ms: " + ("ok" if p99 <= TARGET_P99_MS
                                                         else "MISSED"))


if __name__ == "__main__":
    main()

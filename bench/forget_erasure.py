"""What a purging forget costs as a brain grows (issue 26 section 2), core level.

    python bench/forget_erasure.py [--memories 20000] [--forgets 20]
        [--database postgresql://...]

Seeds ``--memories`` gRPC memories (one transaction per 1,000, through the
store, with their insert events) on a fresh SQLite brain in a temp dir or,
with ``--database``, on that empty PostgreSQL database; tags ``--forgets`` of
them for distinct subjects. Then times, per call:

* ``soft``: gRPC Forget ``soft_delete`` of one memory (no purge, the baseline);
* ``redact``: ForgetSubject ``redact`` of one subject (one memory): the purge,
  SQLite's FTS5 ``optimize`` of both memory indexes and its WAL checkpoint
  included, plus the receipt.

Prints p50/max of each, and the brain's size.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings, write_values
from brainkeep.core.audit import memory_hash
from brainkeep.core.events import memory_insert
from brainkeep.core.ids import uuid7
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.memory.writes import normalize_fact
from brainkeep.core.models import MemoryDraft

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike "
         "november oscar papa quebec romeo sierra tango uniform victor whiskey").split()


def _brain(database: str | None, home: Path) -> Brain:
    settings = load_settings(home, env={})
    if database:
        write_values(settings, {**settings.values, "database.url": database})
        settings = load_settings(home, env={})
    return open_brain(settings)


def _seed(brain: Brain, count: int) -> None:
    store, now = brain.store, brain.clock.now_ts()
    for start in range(0, count, 1000):
        with store.transaction():
            for i in range(start, min(count, start + 1000)):
                text = " ".join(WORDS[(i * k) % len(WORDS)] for k in (1, 3, 7, 11)) + f" n{i}"
                draft = MemoryDraft(text=text, agent_id="bench", origin="grpc")
                memory = store.insert_memory(draft, uuid=uuid7(), now=now,
                                             normalized_text=normalize_fact(text),
                                             content_hash=memory_hash(text, "bench", now))
                store.append_event(memory_insert(memory, actor="bench"), now)


def _p(times: list[float]) -> str:
    return f"p50 {statistics.median(times):.1f} ms, max {max(times):.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--forgets", type=int, default=20)
    parser.add_argument("--database", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        brain = _brain(args.database, Path(tmp) / "home")
        try:
            _seed(brain, args.memories)
            soft, redact = [], []
            for i in range(args.forgets):
                mid = brain.mnemo.remember(RememberInput(
                    content=f"soft {i} oscar", agent_id="bench")).uuid
                start = time.perf_counter()
                brain.mnemo.forget([mid], "soft_delete", "bench")
                soft.append((time.perf_counter() - start) * 1000)
                brain.mnemo.remember(RememberInput(content=f"subject {i} papa secret",
                                                   agent_id="bench", tags=(f"subject:s{i}",)))
                start = time.perf_counter()
                outcome = brain.mnemo.forget_subject(f"s{i}", None, None)
                redact.append((time.perf_counter() - start) * 1000)
                assert outcome.receipt is not None
            print(f"engine {brain.store.engine_name}, {args.memories} memories, "
                  f"{brain.store.size_bytes() / 2**20:.0f} MiB")
            print(f"soft_delete Forget:      {_p(soft)}")
            print(f"redact ForgetSubject:    {_p(redact)}")
        finally:
            brain.close()


if __name__ == "__main__":
    main()

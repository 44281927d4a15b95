"""How long `verify` takes: the default full walk, then `--since-verified` after new events.

Run: ``python bench/verify_speed.py`` (one command). The brain is a copy of
``~/.cache/brainkeep-bench/corpus-200k`` (or ``corpus-200k-pages``) when it
exists (the 200K target), else of ``corpus-20k`` at ``--scale 1``, else one
built here by ``seed_corpus.build_corpus`` at ``--scale`` (and said so).
Never modified in place. Steps, each timed (wall and CPU seconds of this
process and of its child processes, both halves of the walk included):

1. the full walk, ``--repeat`` times (plain ``brainkeep verify``, issue 21;
   ``verify --full`` before it); a clean walk records the proved head;
2. ``--append`` new events (gRPC-style remembers, one event each);
3. ``verify --since-verified`` (it starts from the head step 1 proved; on
   code from before issue 21 the same incremental walk is the default).

The load average is printed too: on a shared machine wall time is mostly
waiting for a core. Before/after (issue 21):
``PYTHONPATH=/tmp/bk_base/src python /tmp/bk_base/bench/verify_speed.py --corpus DIR``
vs ``PYTHONPATH=src python bench/verify_speed.py --corpus DIR``.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.verify import verify_brain

CACHE = Path.home() / ".cache" / "brainkeep-bench"


def _cpu() -> float:
    """CPU seconds of this process and of its reaped children (the walk's child process)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _timed(work: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), _cpu()
    result = work()
    return result, time.perf_counter() - wall, _cpu() - cpu


def _brain_copy(scale: float, home: Path, corpus: Path | None) -> str:
    """Fill ``home`` with a brain; returns where it came from."""
    candidates = [(corpus, None)] if corpus is not None else [
        (CACHE / "corpus-200k", None), (CACHE / "corpus-200k-pages", None),
        (CACHE / "corpus-20k", 1.0)]
    for source, wanted in candidates:
        if (source / "brain.db").exists() and wanted in (None, scale):
            for part in ("brain.db", "brain.db-wal", "brain.db-shm"):
                if (source / part).exists():
                    shutil.copy(source / part, home / part)
            return f"copy of {source}"
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from seed_corpus import build_corpus  # bench helper beside this file

    build_corpus(home, scale=scale)
    return f"built here at --scale {scale} (no cached corpus; NOT the 200K target)"


def _verify(brain: Brain, since_verified: bool) -> Any:
    params = inspect.signature(verify_brain).parameters
    now = brain.clock.now_ts()
    if "side" in params:  # the log-and-pages half where the brain says (a child process)
        return verify_brain(brain.store, since_verified=since_verified, now=now,
                            side=brain.verify_side)
    if "beside" in params:  # the log-and-pages half on the brain's worker threads
        return verify_brain(brain.store, since_verified=since_verified, now=now,
                            beside=brain.workers)
    if "since_verified" in params:  # issue 21: full by default, --since-verified on request
        return verify_brain(brain.store, since_verified=since_verified, now=now)
    if "incremental" in params:  # issue 13: the same walks under the older name
        return verify_brain(brain.store, incremental=since_verified, now=now)
    return verify_brain(brain.store)


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="corpus scale when no cached corpus fits (10 = 200K pages)")
    parser.add_argument("--append", type=int, default=1000, help="new events before step 3")
    parser.add_argument("--repeat", type=int, default=1, help="full walks in step 1")
    parser.add_argument("--corpus", type=Path, default=None,
                        help="copy this brain home instead (any built corpus)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bk-verify-"))
    try:
        origin = _brain_copy(args.scale, home, args.corpus)
        brain = open_brain(load_settings(home, env={}), embedder=None)
        try:
            counts = brain.store.counts()
            walks = []
            for _ in range(max(1, args.repeat)):
                full, full_s, full_cpu = _timed(lambda: _verify(brain, since_verified=False))
                assert full.valid, full.first_broken
                walks.append({"seconds": round(full_s, 3), "cpu": round(full_cpu, 3),
                              "load": _load()})

            def append() -> None:
                for i in range(args.append):
                    brain.mnemo.remember(RememberInput(
                        content=f"verify bench memory {i}", agent_id="bench", scope="public"))

            _, append_s, _ = _timed(append)
            again, inc_s, inc_cpu = _timed(lambda: _verify(brain, since_verified=True))
            assert again.valid, again.first_broken
        finally:
            brain.close()
        result = {
            "brain": origin,
            "events": counts.get("events"), "pages": counts.get("pages"),
            "memories": counts.get("memories"),
            "full_walk": {**min(walks, key=lambda w: w["seconds"]), "runs": walks,
                          "events_checked": full.events_checked,
                          "memories_checked": full.memories_checked},
            "appended_events": args.append, "append_seconds": round(append_s, 2),
            "since_verified": {"mode": getattr(again, "mode", "full"),
                               "seconds": round(inc_s, 3), "cpu": round(inc_cpu, 3),
                               "events_checked": again.events_checked,
                               "from_seq": getattr(again, "from_seq", 0),
                               "not_checked": list(getattr(again, "skipped", ()))},
        }
        if args.json:
            print(json.dumps(result))
        else:
            print(f"brain: {origin}: {result['events']} events, {result['pages']} pages, "
                  f"{result['memories']} memories")
            for walk in walks:
                print(f"full walk (default verify): {walk['seconds']:.3f} s wall, "
                      f"{walk['cpu']:.3f} s CPU ({full.events_checked} events, "
                      f"{full.memories_checked} memories; load {walk['load']})")
            after = result["since_verified"]
            print(f"after {args.append} new events: verify --since-verified ({after['mode']}) "
                  f"{inc_s:.3f} s wall, {inc_cpu:.3f} s CPU ({again.events_checked} events "
                  f"checked, from seq {after['from_seq']}; load {_load()})")
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

"""How long `verify` takes: the full walk, then incremental after new events (issue 13).

Run: ``python bench/verify_speed.py`` (one command). The brain is a copy of
``~/.cache/brainkeep-bench/corpus-200k`` when it exists (the 200K target),
else of ``corpus-20k`` at ``--scale 1``, else one built here by
``seed_corpus.build_corpus`` at ``--scale`` (and said so). Never modified in
place. Steps, each timed (wall and CPU seconds):

1. a full walk (``verify --full``); on code with incremental verify it
   records the proved head;
2. ``--append`` new events (gRPC-style remembers, one event each);
3. ``verify`` again: incremental where the code supports it (it starts from
   the head step 1 proved), else the full walk the old code always does.

Before/after: ``PYTHONPATH=/tmp/bk_base/src python /tmp/bk_base/bench/verify_speed.py``
(copy this file there) vs ``PYTHONPATH=src python bench/verify_speed.py``.
"""

from __future__ import annotations

import argparse
import inspect
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.mnemo.remember import RememberInput
from brainkeep.core.verify import verify_brain

CACHE = Path.home() / ".cache" / "brainkeep-bench"


def _timed(work: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def _brain_copy(scale: float, home: Path, corpus: Path | None) -> str:
    """Fill ``home`` with a brain; returns where it came from."""
    candidates = [(corpus, None)] if corpus is not None else [
        (CACHE / "corpus-200k", None), (CACHE / "corpus-20k", 1.0)]
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


def _verify(brain: Brain, incremental: bool) -> Any:
    params = inspect.signature(verify_brain).parameters
    if "incremental" in params:  # the incremental verifier (issue 13)
        return verify_brain(brain.store, incremental=incremental, now=brain.clock.now_ts())
    return verify_brain(brain.store)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="corpus scale when no cached corpus fits (10 = 200K pages)")
    parser.add_argument("--append", type=int, default=1000, help="new events before step 3")
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
            full, full_s, full_cpu = _timed(lambda: _verify(brain, incremental=False))
            assert full.valid, full.first_broken

            def append() -> None:
                for i in range(args.append):
                    brain.mnemo.remember(RememberInput(
                        content=f"verify bench memory {i}", agent_id="bench", scope="public"))

            _, append_s, _ = _timed(append)
            again, inc_s, inc_cpu = _timed(lambda: _verify(brain, incremental=True))
            assert again.valid, again.first_broken
        finally:
            brain.close()
        result = {
            "brain": origin,
            "events": counts.get("events"), "pages": counts.get("pages"),
            "memories": counts.get("memories"),
            "full_walk": {"seconds": round(full_s, 3), "cpu": round(full_cpu, 3),
                          "events_checked": full.events_checked},
            "appended_events": args.append, "append_seconds": round(append_s, 2),
            "after_append": {"mode": getattr(again, "mode", "full"),
                             "seconds": round(inc_s, 3), "cpu": round(inc_cpu, 3),
                             "events_checked": again.events_checked,
                             "from_seq": getattr(again, "from_seq", 0)},
        }
        if args.json:
            print(json.dumps(result))
        else:
            print(f"brain: {origin}: {result['events']} events, {result['pages']} pages, "
                  f"{result['memories']} memories")
            print(f"full walk: {full_s:.3f} s wall, {full_cpu:.3f} s CPU "
                  f"({full.events_checked} events)")
            after = result["after_append"]
            print(f"after {args.append} new events: {after['mode']} verify {inc_s:.3f} s wall, "
                  f"{inc_cpu:.3f} s CPU ({again.events_checked} events checked, "
                  f"from seq {after['from_seq']})")
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Scripts the e2e tests run as real, separate Python processes."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL


def _wait_for(flag: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not flag.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {flag}")
        time.sleep(0.005)


def remember_many(home: str, worker: str, count: str, sync_dir: str) -> None:
    """Open the brain, say ready, wait for `go`, then remember COUNT facts one by one."""
    brain = open_brain(load_settings(Path(home), env={}))
    sync = Path(sync_dir)
    (sync / f"ready-{worker}").touch()
    _wait_for(sync / "go")
    try:
        for i in range(int(count)):
            result = brain.facts.remember(
                f"worker {worker} fact {i}", f"worker {worker}", LOCAL, entity=f"people/w{worker}"
            )
            assert result.status == "inserted", result.status
    finally:
        brain.close()


def hold_and_write(home: str, sync_dir: str, hold_s: str) -> None:
    """Keep the brain open, hold the write lock for HOLD_S seconds, then keep writing."""
    brain = open_brain(load_settings(Path(home), env={}))
    sync = Path(sync_dir)
    with brain.store.transaction():
        brain.facts.remember("holder fact (inside the long transaction)", "holder", LOCAL)
        (sync / "holding").touch()
        time.sleep(float(hold_s))
    for i in range(20):
        brain.facts.remember(f"holder fact {i}", "holder", LOCAL)
    _wait_for(sync / "done")
    brain.close()


def remember_then_die(home: str, count: str) -> None:
    """Remember facts, print each id once the call returned, then die without closing."""
    import os

    brain = open_brain(load_settings(Path(home), env={}))
    for i in range(int(count)):
        memory = brain.facts.remember(f"durable fact {i}", "durability test", LOCAL).memory
        print(memory.id, flush=True)
    os._exit(0)  # no close(), no atexit, no WAL checkpoint


if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])

"""Benchmark `import` of a folder of markdown notes.

Run: ``python bench/import_speed.py`` (5,000 files; ``--files N`` to change,
``--cli`` to also time ``brainkeep import`` as a real subprocess).

The notes are the pages of ``seed_corpus`` written to disk as files
(frontmatter with title, type, aliases and typed links, wikilinks in the body,
a ``## Timeline`` section), under ``people/``, ``companies/``, ``projects/``
and ``meetings/`` folders. It times ``brainkeep.core.transfer.import_dir``
into a fresh brain, then an idempotent re-run (every file unchanged).

Target (issue 2): >= 1,000 files/s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from seed_corpus import page_identity, page_markdown

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.core.transfer import import_dir

Timing = tuple[float, float]


def write_notes(root: Path, count: int, seed: int = 7) -> int:
    """Write ``count`` markdown notes under ``root``; returns their total bytes."""
    rng = random.Random(seed)
    identities = [page_identity(i) for i in range(count)]
    total = 0
    for i, (slug, _, _) in enumerate(identities):
        path = root / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = page_markdown(i, identities, rng)
        path.write_text(text, encoding="utf-8")
        total += len(text.encode())
    return total


def time_import(notes: Path, home: Path) -> tuple[Timing, Timing, dict[str, int]]:
    """(wall s, CPU s) of a first import and of a re-run, and the brain's counts.

    CPU time is reported too because this machine is shared: when other
    work competes for the 2 cores, wall time overstates the cost.
    """
    brain = open_brain(load_settings(home, env={}))
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        first = import_dir(brain.pages, notes)
        first_t = (time.perf_counter() - wall, time.process_time() - cpu)
        assert not first.failed, first.failed[:3]
        wall, cpu = time.perf_counter(), time.process_time()
        again = import_dir(brain.pages, notes)
        again_t = (time.perf_counter() - wall, time.process_time() - cpu)
        assert again.unchanged == first.added, (again, first)
        return first_t, again_t, brain.store.counts()
    finally:
        brain.close()


def time_cli(notes: Path, home: Path) -> float:
    """Seconds of `brainkeep import` as a subprocess (includes start-up)."""
    env = dict(os.environ, BRAINKEEP_HOME=str(home))
    subprocess.run(
        [sys.executable, "-m", "brainkeep", "init"], env=env, check=True, capture_output=True
    )
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "brainkeep", "import", str(notes), "--json"],
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def _rate(files: int, timing: Timing) -> str:
    wall, cpu = timing
    return (
        f"{files / wall:,.0f} files/s wall ({wall:.2f} s), "
        f"{files / cpu:,.0f} files/s of CPU ({cpu:.2f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=5_000)
    parser.add_argument("--cli", action="store_true", help="also time the CLI subprocess")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="brainkeep-import-"))
    try:
        notes = work / "notes"
        start = time.perf_counter()
        size = write_notes(notes, args.files)
        print(f"cores: {os.cpu_count()}")
        print(
            f"wrote {args.files:,} notes ({size / 1_048_576:.1f} MiB) "
            f"in {time.perf_counter() - start:.1f} s"
        )
        first, again, counts = time_import(notes, work / "home")
        print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        print(
            f"import_dir, fresh brain: {_rate(args.files, first)} -> "
            f"{counts['pages']:,} pages, {counts['links']:,} links, "
            f"{counts['aliases']:,} aliases, {counts['timeline_entries']:,} timeline entries"
        )
        print(f"import_dir, re-run (all unchanged): {_rate(args.files, again)}")
        if args.cli:
            cli_s = time_cli(notes, work / "cli-home")
            print(
                f"brainkeep import (subprocess, incl. start-up): "
                f"{args.files / cli_s:,.0f} files/s ({cli_s:.2f} s)"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

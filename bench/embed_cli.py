"""`brainkeep embed` throughput with the local model, measured through the real CLI.

    python bench/embed_cli.py [--scale 0.1]

Builds a corpus with ``bench/seed_corpus.build_corpus`` (scale 0.1: 2,000
pages with ~4,000 chunks, and 4,000 memories) without embeddings, switches the
brain to ``embeddings.provider local``, then runs ``brainkeep embed --json``
as a subprocess and reads its report: every chunk and memory goes through the
model once (texts/s counts model work only; rows filled by reusing an
identical text's vector are reported apart). Wall time includes the model
load and SQLite writes.

Target (issue 5, this 2-core machine): >= 100 texts/s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from seed_corpus import build_corpus  # noqa: E402

TARGET = 100.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.1)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bk-embed-bench-"))
    try:
        print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}")
        manifest = build_corpus(home, args.scale, 7)
        counts = manifest["counts"]
        print(f"corpus: {counts['chunks']:,} chunks, {counts['memories']:,} memories")
        env = {**os.environ, "BRAINKEEP_HOME": str(home)}
        cli = [sys.executable, "-m", "brainkeep"]
        subprocess.run([*cli, "config", "set", "embeddings.provider", "local"], env=env,
                       check=True, capture_output=True)
        started = time.perf_counter()
        done = subprocess.run([*cli, "embed", "--json"], env=env, check=True,
                              capture_output=True, text=True)
        wall = time.perf_counter() - started
        report = json.loads(done.stdout)
        total = report["chunks"] + report["memories"]
        print(f"brainkeep embed: {report['embedded']:,} texts through the model "
              f"({report['reused']:,} reused) in {report['seconds']:.1f} s "
              f"= {report['texts_per_s']:.0f} texts/s; wall {wall:.1f} s for {total:,} rows "
              f"({total / wall:.0f} rows/s incl. model load)")
        verdict = "ok" if report["texts_per_s"] >= TARGET else "MISSED"
        print(f"target >= {TARGET:.0f} texts/s: {verdict}")
        print(f"load average after: {os.getloadavg()} (other work on the machine skews this)")
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

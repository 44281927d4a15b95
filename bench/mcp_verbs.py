"""Latency of the verbs over MCP stdio, with the official client.

    python bench/mcp_verbs.py [--home DIR]

Spawns a real `brainkeep serve` on a fresh brain and drives: 200 put_page,
400 remember, 200 recall by entity, 200 recall with a query, 200 entity,
100 forget. Prints p50/p99 per verb (client-observed, transport included).
Targets (2-core machine): p50 <= 3 ms for remember, recall-by-entity and
forget; <= 8 ms for recall-with-query and entity.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TARGET_P50_MS = {"remember": 3, "recall(entity)": 3, "forget": 3, "recall(query)": 8,
                 "entity": 8, "put_page": None}
WORDS = ("launch pricing roadmap hiring budget partner contract design review "
         "migration outage customer invoice research prototype").split()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def drive(home: Path) -> dict[str, list[float]]:
    rng = random.Random(7)
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "brainkeep", "serve"], env=env
    )
    timings: dict[str, list[float]] = {name: [] for name in TARGET_P50_MS}

    async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
        await client.initialize()

        async def timed(label: str, tool: str, **arguments: object) -> dict:
            started = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            timings[label].append((time.perf_counter() - started) * 1000)
            payload = json.loads(result.content[0].text)
            if result.is_error:
                raise RuntimeError(f"{tool} failed: {payload}")
            return payload

        for i in range(200):
            words = " ".join(rng.sample(WORDS, 6))
            await timed(
                "put_page", "put_page", slug=f"people/person-{i:03d}",
                content=f"---\ntitle: Person {i}\naliases: [P{i}]\n---\n"
                        f"Person {i} works on {words}.\n",
            )
        ids: list[str] = []
        for i in range(400):
            saved = await timed(
                "remember", "remember", fact=f"Person {i % 200} mentioned {rng.choice(WORDS)} #{i}",
                provenance="bench", entity=f"people/person-{i % 200:03d}",
            )
            ids.append(saved["id"])
        for i in range(200):
            await timed("recall(entity)", "recall", entity=f"people/person-{i:03d}")
        for _ in range(200):
            await timed("recall(query)", "recall", query=" ".join(rng.sample(WORDS, 2)))
        for i in range(200):
            name = rng.choice([f"P{i}", f"Person {i}", f"people/person-{i:03d}", f"person-{i:03d}",
                               "nobody here"])
            await timed("entity", "entity", name=name)
        for fact_id in ids[:100]:
            await timed("forget", "forget", id=fact_id)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, help="brain folder (default: a temp dir)")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="bk-mcp-bench-")) / "brain"
    subprocess.run([sys.executable, "-m", "brainkeep", "--home", str(home), "init"],
                   check=True, capture_output=True)
    timings = anyio.run(drive, home)
    print(f"{'verb':<16}{'calls':>7}{'p50 ms':>9}{'p99 ms':>9}{'mean':>8}  target p50")
    for label, values in timings.items():
        target = TARGET_P50_MS[label]
        p50 = pct(values, 0.5)
        verdict = "-" if target is None else (f"<= {target} ms " + ("ok" if p50 <= target else
                                                                     "MISSED"))
        print(f"{label:<16}{len(values):>7}{p50:>9.2f}{pct(values, 0.99):>9.2f}"
              f"{statistics.mean(values):>8.2f}  {verdict}")


if __name__ == "__main__":
    main()

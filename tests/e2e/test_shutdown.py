"""Every server kind stops on SIGTERM/SIGINT: exit 0, within a bound, every time.

Each round is a real `brainkeep serve` subprocess: start, wait for its ready
line on stderr, signal, wait. gRPC-only (the kind that once stayed up with
its main thread in ``stop.wait()``) runs 50 rounds; stdio, HTTP and HTTP+gRPC
run ``OTHER_ROUNDS`` each (default 5) to keep the suite inside its CI
budget on 2 cores. ``BRAINKEEP_SHUTDOWN_ROUNDS=50`` runs 50 of every kind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from brainkeep.brain import open_brain
from brainkeep.config import Settings

GRPC_ROUNDS = 50
OTHER_ROUNDS = int(os.environ.get("BRAINKEEP_SHUTDOWN_ROUNDS", "5"))
READY_TIMEOUT_S = 30.0
# Grace periods are 5 s (gRPC, stdio) and 10 s (HTTP); an idle server needs far less.
STOP_BOUND_S = 15.0
KINDS = {
    "stdio": ([], "MCP over stdio", OTHER_ROUNDS),
    "grpc": (["--grpc", "--grpc-port", "0"], "gRPC listening on", GRPC_ROUNDS),
    "http": (["--http", "--port", "0"], "MCP over HTTP at", OTHER_ROUNDS),
    "http+grpc": (["--http", "--port", "0", "--grpc", "--grpc-port", "0"],
                  "MCP over HTTP at", OTHER_ROUNDS),
}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("shutdown") / "brain"
    open_brain(Settings(home=home)).close()
    return home


def one_round(home: Path, args: list[str], ready: str, sig: signal.Signals) -> str | None:
    """Start, wait ready, signal, wait; None on a clean stop, else what went wrong."""
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    env.pop("BRAINKEEP_GRPC_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "brainkeep", "serve", *args],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
    )
    assert proc.stderr is not None
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        seen = b""
        while ready.encode() not in seen:
            line = proc.stderr.readline()
            if not line or time.monotonic() > deadline:
                return f"not ready: {seen.decode(errors='replace')[-500:]}"
            seen += line
        proc.send_signal(sig)
        started = time.monotonic()
        try:
            code = proc.wait(timeout=STOP_BOUND_S)
        except subprocess.TimeoutExpired:
            return f"still running {STOP_BOUND_S} s after {sig.name}"
        if code != 0:
            rest = proc.stderr.read().decode(errors="replace")[-800:]
            return f"exit {code} after {sig.name} ({time.monotonic() - started:.1f} s): {rest}"
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
        if proc.stdin is not None:
            proc.stdin.close()


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_server_kind_stops_cleanly_every_time(home: Path, kind: str) -> None:
    args, ready, rounds = KINDS[kind]
    # Alternate the two signals; two rounds at a time (startup is CPU-bound, 2 cores).
    signals = [signal.SIGTERM if i % 2 == 0 else signal.SIGINT for i in range(rounds)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda sig: one_round(home, args, ready, sig), signals))
    failures = [o for o in outcomes if o is not None]
    assert not failures, f"{len(failures)}/{rounds} {kind} stops failed; first: {failures[0]}"

"""Two real `brainkeep serve --grpc` processes on one brain share one orientation map."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import grpc
import pytest

from brainkeep.brain import open_brain
from brainkeep.config import load_settings
from brainkeep.grpc.generated import mnemo_pb2 as pb
from brainkeep.grpc.generated import mnemo_pb2_grpc as pb_grpc

pytestmark = pytest.mark.timeout(180)
LISTENING = re.compile(r"gRPC listening on 127\.0\.0\.1:(\d+)")


@contextmanager
def _serve(home: Path) -> Iterator[pb_grpc.MnemoServiceStub]:
    env = {**os.environ, "BRAINKEEP_HOME": str(home)}
    env.pop("BRAINKEEP_GRPC_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", "from brainkeep.cli.main import main; main()",
         "serve", "--grpc", "--grpc-port", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
        text=True,
    )
    try:
        assert proc.stderr is not None
        port, deadline = None, time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "server exited before listening"
            found = LISTENING.search(line)
            port = int(found.group(1)) if found else None
        assert port, "no 'gRPC listening' line on stderr"
        # Keep reading: a full stderr pipe would block the server mid-test.
        drain = threading.Thread(target=proc.stderr.read, daemon=True)
        drain.start()
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield pb_grpc.MnemoServiceStub(channel)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def _recall(stub: pb_grpc.MnemoServiceStub, **cache: bool) -> pb.RecallResponse:
    return stub.Recall(pb.RecallRequest(
        query="Alice Chen", strategy="lexical", agent_id="alice",
        orientation_cache=pb.OrientationCacheRequest(namespace="fleet", **cache)), timeout=20)


def test_two_server_processes_add_to_one_map(grpc_home: Path) -> None:
    open_brain(load_settings(grpc_home, env={})).close()
    with ExitStack() as stack:
        one, two = (stack.enter_context(_serve(grpc_home)) for _ in range(2))
        for text in ("Alice Chen runs billing; port: 5432", "Alice Chen owns users(id, email)"):
            one.Remember(pb.RememberRequest(content=text, agent_id="alice", scope="public"),
                         timeout=20)
        rounds = 6

        def hammer(stub: pb_grpc.MnemoServiceStub) -> None:
            for _ in range(rounds):
                _recall(stub, include_in_response=False)

        threads = [threading.Thread(target=hammer, args=(s,)) for s in (one, two, one, two)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        maps = [_recall(s, distill=False).orientation_cache for s in (one, two)]
        assert maps[0] == maps[1]
        assert maps[0].hit_count == 4 * rounds
        entities = {(e.key, e.value): e.freq for e in maps[0].entities}
        assert entities[("Alice Chen", "name")] == 2 * 4 * rounds  # both memories, every recall
        assert {(e.key, e.value) for e in maps[0].constants} == {("port", "5432")}
        assert {(e.key, e.value) for e in maps[0].schemas} == {("users", "id, email")}

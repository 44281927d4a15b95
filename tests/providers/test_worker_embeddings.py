"""The shared embedding worker (`embeddings.worker = host`): real processes, real sockets."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from brainkeep.errors import InvalidInput
from brainkeep.providers import EmbeddingSettings, make_embedding_provider
from brainkeep.providers.local_embeddings import LocalEmbeddingProvider
from brainkeep.providers.worker_embeddings import WorkerEmbeddingProvider, worker_socket

TEXTS = ["Alice leads the billing migration.", "Bob prefers tea to coffee.",
         "The offsite is in Lisbon in March."]


@pytest.fixture
def env() -> Iterator[dict[str, str]]:
    """A runtime directory of the test's own (short: AF_UNIX paths cap near 108 bytes)."""
    base = tempfile.mkdtemp(prefix="bkw", dir="/tmp")
    made = {**os.environ, "BRAINKEEP_EMBED_RUNTIME_DIR": base,
            "BRAINKEEP_EMBED_WORKER_IDLE_S": "120"}
    yield made
    path = worker_socket(made)
    if path.exists():  # stop the test's worker
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(5)
                sock.connect(str(path))
                sock.sendall(b'{"op": "quit"}\n')
                sock.recv(100)
        except OSError:
            pass


def provider(env: dict[str, str], **kwargs: Any) -> WorkerEmbeddingProvider:
    made = make_embedding_provider(EmbeddingSettings(provider="local", worker="host"), env)
    assert isinstance(made, WorkerEmbeddingProvider)
    if kwargs:
        made = WorkerEmbeddingProvider(made.path, env=env, batch_size=16, **kwargs)
    return made


def wait_gone(pid: int, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_the_worker_makes_the_in_process_vectors_for_every_process(env: dict[str, str]) -> None:
    shared = provider(env)
    vectors = shared.embed(TEXTS)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.abs(vectors - LocalEmbeddingProvider().embed(TEXTS)).max() < 1e-6
    assert not shared.in_process
    worker = shared.ping()["pid"]
    assert worker != os.getpid()
    # Another process finds the same worker instead of starting its own.
    other = subprocess.run(
        [sys.executable, "-c",
         "import os; from brainkeep.providers import EmbeddingSettings, make_embedding_provider;"
         "p = make_embedding_provider(EmbeddingSettings(provider='local', worker='host'), "
         "os.environ); v = p.embed(['Bob prefers tea to coffee.']);"
         "print(p.ping()['pid'], float(v[0] @ v[0]))"],
        env=env, capture_output=True, text=True, timeout=120, check=True)
    pid, norm = other.stdout.split()
    assert int(pid) == worker and abs(float(norm) - 1.0) < 1e-5
    shared.close()


def test_a_killed_worker_is_replaced_and_the_call_still_answers(env: dict[str, str]) -> None:
    shared = provider(env)
    first = shared.ping()["pid"]
    os.kill(first, signal.SIGKILL)
    assert wait_gone(first)
    vectors = shared.embed(TEXTS[:1])  # the pooled connection is dead: a new worker answers
    assert vectors.shape == (1, 384) and not shared.in_process
    assert shared.ping()["pid"] != first
    shared.close()


def test_an_unsafe_socket_directory_means_the_model_runs_in_process(
        env: dict[str, str]) -> None:
    directory = worker_socket(env).parent
    directory.mkdir(parents=True)
    directory.chmod(0o777)  # another user could serve a fake worker here
    shared = provider(env)
    vectors = shared.embed(TEXTS)
    assert shared.in_process
    assert np.abs(vectors - LocalEmbeddingProvider().embed(TEXTS)).max() < 1e-6
    assert not worker_socket(env).exists()
    shared.close()


def test_no_worker_within_the_wait_means_in_process(env: dict[str, str]) -> None:
    path = worker_socket(env)
    path.mkdir(parents=True)  # nothing can listen here: every worker started fails to bind
    shared = WorkerEmbeddingProvider(path, env=env, batch_size=16, start_wait_s=1.0)
    assert np.abs(shared.embed(TEXTS) - LocalEmbeddingProvider().embed(TEXTS)).max() < 1e-6
    assert shared.in_process
    shared.close()


def raw_ask(path: Path, line: bytes) -> tuple[dict[str, Any], socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(str(path))
    sock.sendall(line)
    reader = sock.makefile("rb")
    return json.loads(reader.readline()), sock


def test_the_worker_refuses_bad_requests_and_keeps_serving(env: dict[str, str]) -> None:
    shared = provider(env)
    pid = shared.ping()["pid"]
    for line in (b"not json\n", b'{"op": "embed", "texts": "one string"}\n',
                 b'{"op": "embed", "texts": [1, 2]}\n', b'["embed"]\n', b'{"op": "drop"}\n'):
        answer, sock = raw_ask(shared.path, line)
        sock.close()
        assert answer["ok"] is False and answer["code"] == "bad_request", line
    assert shared.embed(TEXTS).shape == (3, 384)
    assert shared.ping()["pid"] == pid
    shared.close()


def test_a_big_call_is_cut_into_requests_in_order(env: dict[str, str]) -> None:
    shared = provider(env)
    texts = [f"fact number {i} about the roadmap" for i in range(600)]  # > 256 a request
    vectors = shared.embed(texts)
    assert vectors.shape == (600, 384)
    assert np.abs(vectors[[0, 300, 599]] - LocalEmbeddingProvider().embed(
        [texts[0], texts[300], texts[599]])).max() < 1e-6
    shared.close()


def test_an_idle_worker_exits_and_removes_its_socket(env: dict[str, str]) -> None:
    shared = provider({**env, "BRAINKEEP_EMBED_WORKER_IDLE_S": "0.5"})
    pid = shared.ping()["pid"]
    shared.close()
    assert wait_gone(pid)
    assert not worker_socket(env).exists()


def test_worker_settings_are_checked() -> None:
    with pytest.raises(InvalidInput) as caught:
        make_embedding_provider(EmbeddingSettings(provider="http", model="m", dimensions=3,
                                                  base_url="http://127.0.0.1:9/v1",
                                                  worker="host"), {})
    assert caught.value.field == "worker"
    with pytest.raises(InvalidInput):
        make_embedding_provider(EmbeddingSettings(provider="local", worker="cluster"), {})  # type: ignore[arg-type]
    assert isinstance(make_embedding_provider(EmbeddingSettings(provider="local"), {}),
                      LocalEmbeddingProvider)


def test_a_serving_process_never_loads_the_model(env: dict[str, str], tmp_path: Path) -> None:
    """`brainkeep serve` with the worker: remember and recall by meaning, no onnxruntime mapped."""
    home = tmp_path / "brain"
    run = {**env, "BRAINKEEP_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "brainkeep", "init"], env=run, check=True,
                   capture_output=True)
    for key, value in (("embeddings.provider", "local"), ("embeddings.worker", "host")):
        subprocess.run([sys.executable, "-m", "brainkeep", "config", "set", key, value],
                       env=run, check=True, capture_output=True)
    server = subprocess.Popen([sys.executable, "-m", "brainkeep", "serve"], env=run,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    seq = iter(range(1, 100))

    def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert server.stdin is not None and server.stdout is not None
        ident = next(seq)
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                                       "params": params}).encode() + b"\n")
        server.stdin.flush()
        reply = json.loads(server.stdout.readline())
        assert reply["id"] == ident
        return reply["result"]

    try:
        call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "test", "version": "1"}})
        call("tools/list", {})
        facts = ["Priya runs the kitchen renovation budget.",
                 "The team offsite moved to Lisbon.", "Chen adopted a grey cat named Miso."]
        for fact in facts:
            saved = call("tools/call", {"name": "remember", "arguments": {
                "fact": fact, "provenance": "test"}})
            assert saved["isError"] is False
        found = call("tools/call", {"name": "recall", "arguments": {
            "query": "who has a new pet", "limit": 1}})
        payload = json.loads(found["content"][0]["text"])
        assert [f["fact"] for f in payload["facts"]] == [facts[2]]  # by meaning, no shared word
        maps = Path(f"/proc/{server.pid}/maps").read_text()
        assert "onnxruntime" not in maps
    finally:
        server.stdin.close()
        server.wait(timeout=60)
        server.stdout.close()

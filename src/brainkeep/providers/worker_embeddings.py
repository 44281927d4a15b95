"""The local model, run once per host: a provider that embeds in the shared embedding worker.

With ``embeddings.worker = host`` every brainkeep process of this user on
this machine (servers, the hooks' ambient server) sends its texts to one
worker process over a Unix socket instead of loading the model itself: the
onnxruntime session is ~195 MiB of private memory per process, the rest of
a serving process much less (docs/benchmarks.md, "Lighter processes"). The
worker runs the same file with the same settings as the in-process provider,
so its vectors are the same vectors (one model space, ``LOCAL_MODEL_ID``).

The first process that finds no worker starts one
(``python -m brainkeep.providers.embed_worker``; binding its socket is the
start-up lock) and it exits after a quiet spell. When no worker can be
reached or started, the process loads the model itself and says so once in
its log: an embedding is never lost to the worker being down. A batch job
(``brainkeep embed``) runs its own throughput-tuned model (``for_backfill``).

Wire format, per connection, any number of requests: one JSON line
``{"op": "embed", "texts": [...]}`` answered by a JSON line ``{"ok": true,
"rows": n, "dim": d, "model": id}`` and then n x d little-endian float32;
``{"op": "ping"}`` -> ``{"ok": true, "model", "pid"}``; an error is
``{"ok": false, "code", "message"}``.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np

from brainkeep import __version__
from brainkeep.errors import Unavailable
from brainkeep.providers.local_embeddings import (
    LOCAL_DIMENSIONS,
    LOCAL_MODEL_ID,
    MODEL_SHA256,
    LocalEmbeddingProvider,
)
from brainkeep.unix_socket import private_dir, runtime_dir, start_helper

log = logging.getLogger("brainkeep.embeddings")
T = TypeVar("T")

# A request line the worker accepts at most; the client cuts its batches below it.
MAX_REQUEST_BYTES = 32 * 1024 * 1024
REQUEST_TEXTS = 256
REQUEST_BYTES = 8 * 1024 * 1024
# How long a process waits for a worker it started (imports and the model load:
# about a second, several on a busy machine) before embedding in-process instead.
START_WAIT_S = 30.0
_POLL_S = 0.05


def worker_socket(env: Mapping[str, str]) -> Path:
    """The worker's socket: one per user, model file and brainkeep version."""
    return (runtime_dir(env, "BRAINKEEP_EMBED_RUNTIME_DIR")
            / f"embed-{MODEL_SHA256[:12]}-{__version__}.sock")


class WorkerUnreachable(Exception):
    """No worker answers on the socket, and none could be started."""


class _Connection:
    def __init__(self, path: Path, timeout_s: float) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout_s)
        try:
            self.sock.connect(str(path))
        except OSError:
            self.sock.close()
            raise
        self.reader: IO[bytes] = self.sock.makefile("rb")

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.sock.sendall(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
        line = self.reader.readline(MAX_REQUEST_BYTES)
        if not line.endswith(b"\n"):
            raise ConnectionError("the embedding worker closed the connection")
        answer = json.loads(line)
        if not isinstance(answer, dict):
            raise ConnectionError("the embedding worker answered out of protocol")
        return answer

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


class WorkerEmbeddingProvider:
    """all-MiniLM-L6-v2 computed by the host's embedding worker (thread-safe)."""

    name = "local"
    model_id = LOCAL_MODEL_ID
    dimensions = LOCAL_DIMENSIONS

    def __init__(self, path: Path, *, env: Mapping[str, str], batch_size: int,
                 timeout_s: float = 30.0, start_wait_s: float = START_WAIT_S) -> None:
        self.path = path
        self._env = dict(env)
        self._batch_size = batch_size
        self._timeout_s = timeout_s
        self._start_wait_s = start_wait_s
        self._lock = threading.Lock()
        self._idle: list[_Connection] = []
        self._in_process: LocalEmbeddingProvider | None = None

    def for_backfill(self) -> LocalEmbeddingProvider:
        """The throughput-tuned in-process model: a batch job keeps both cores to itself."""
        return LocalEmbeddingProvider(batch_size=self._batch_size).for_backfill()

    @property
    def in_process(self) -> bool:
        """Whether this process fell back to its own model (no worker could be reached)."""
        return self._in_process is not None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` in the worker; returns float32 ``(len(texts), 384)`` unit rows.

        Raises:
            Unavailable: the model cannot run (the worker's answer, or this
                process's own when it fell back).
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single str")
        texts = list(texts)
        if not texts:
            return np.zeros((0, LOCAL_DIMENSIONS), dtype=np.float32)
        if self._in_process is None:
            try:
                return np.concatenate([self._ask(part) for part in _requests(texts)])
            except WorkerUnreachable as exc:
                self._fall_back(exc)
        assert self._in_process is not None
        return self._in_process.embed(texts)

    def close(self) -> None:
        """Close this process's connections (the worker goes on serving the others)."""
        with self._lock:
            idle, self._idle = self._idle, []
            local, self._in_process = self._in_process, None
        for connection in idle:
            connection.close()
        if local is not None:
            local.close()

    def ping(self) -> dict[str, Any]:
        """The worker's ping answer (starting one if none runs): its model and pid."""
        return self._with_connection(lambda c: c.ask({"op": "ping"}))

    def _ask(self, texts: list[str]) -> np.ndarray:
        def run(connection: _Connection) -> np.ndarray:
            answer = connection.ask({"op": "embed", "texts": texts})
            if not answer.get("ok"):
                raise Unavailable(
                    "The embedding worker cannot embed: " + str(answer.get("message") or ""),
                    suggestion="See the worker's log beside its socket ("
                    f"{self.path.with_suffix('.log')}), or set embeddings.worker to `process`.",
                    detail=str(answer.get("code") or ""),
                )
            rows, dim = int(answer["rows"]), int(answer["dim"])
            if rows != len(texts) or dim != LOCAL_DIMENSIONS:
                raise ConnectionError("the embedding worker answered another shape")
            data = connection.reader.read(rows * dim * 4)
            if len(data) != rows * dim * 4:
                raise ConnectionError("the embedding worker closed the connection mid-answer")
            return np.frombuffer(data, dtype="<f4").reshape(rows, dim).astype(np.float32)

        return self._with_connection(run)

    def _with_connection(self, run: Callable[[_Connection], T]) -> T:
        try:
            return self._run_on(self._take(fresh=False), run)
        except (OSError, ValueError):
            pass  # a pooled connection closed by a worker that exited idle: once more, anew
        try:
            return self._run_on(self._take(fresh=True), run)
        except (OSError, ValueError) as exc:
            raise WorkerUnreachable(str(exc)) from exc

    def _run_on(self, connection: _Connection, run: Callable[[_Connection], T]) -> T:
        try:
            result = run(connection)
        except BaseException:
            connection.close()
            raise
        with self._lock:
            self._idle.append(connection)
        return result

    def _take(self, *, fresh: bool) -> _Connection:
        with self._lock:
            if self._idle and not fresh:
                return self._idle.pop()
        if not private_dir(self.path.parent):
            raise WorkerUnreachable(f"{self.path.parent} is not a directory only this user "
                                    "can enter")
        try:
            return _Connection(self.path, self._timeout_s)
        except OSError:
            pass
        self._start()
        deadline = time.monotonic() + self._start_wait_s
        while True:
            try:
                return _Connection(self.path, self._timeout_s)
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise WorkerUnreachable(f"no embedding worker on {self.path}: {exc}") from exc
                time.sleep(_POLL_S)

    def _start(self) -> None:
        worker = start_helper("brainkeep.providers.embed_worker", ["--socket", str(self.path)],
                              self.path.with_suffix(".log"), self._env)
        # It outlives no one's interest but is our child: reap it when it exits
        # (idle), or it lingers as a zombie for as long as this process lives.
        threading.Thread(target=worker.wait, name="embed-worker-reaper", daemon=True).start()

    def _fall_back(self, reason: WorkerUnreachable) -> None:
        with self._lock:
            if self._in_process is None:
                log.warning("embedding worker unreachable (%s): loading the model in this "
                            "process", reason)
                self._in_process = LocalEmbeddingProvider(batch_size=self._batch_size)


def _requests(texts: list[str]) -> list[list[str]]:
    """``texts`` cut into requests the worker accepts (by count, and by size)."""
    parts: list[list[str]] = [[]]
    size = 0
    for text in texts:
        cost = len(text) * 4 + 8  # an upper bound of its JSON bytes
        if parts[-1] and (len(parts[-1]) >= REQUEST_TEXTS or size + cost > REQUEST_BYTES):
            parts.append([])
            size = 0
        parts[-1].append(text)
        size += cost
    return parts

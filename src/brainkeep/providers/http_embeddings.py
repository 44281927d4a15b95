"""Embeddings from any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

Works with Ollama (``http://127.0.0.1:11434/v1``), vLLM and OpenAI. We do not
send ``dimensions`` in the request: vLLM rejects it for models without
Matryoshka support. Instead every returned vector is checked against the
configured length, and re-normalized, because not every server returns unit
vectors (Ollama's do not, for some models).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from brainkeep.providers._http import malformed, post_json, redact_url

_PROVIDER = "embedding"
# Inputs per request: well under every server's limit (OpenAI allows 2048) and
# small enough that one slow batch does not run into the timeout.
HTTP_BATCH_SIZE = 64


class HttpEmbeddingProvider:
    """An OpenAI-style embeddings client; one pooled ``httpx.Client`` per instance."""

    name = "http"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dimensions: int,
        api_key: str | None,
        timeout_s: float = 30.0,
        batch_size: int = HTTP_BATCH_SIZE,
        api_key_env: str | None = None,
    ) -> None:
        """Create the client; nothing is sent until ``embed``.

        Args:
            base_url: API root without trailing slash, e.g. ``http://host/v1``.
            model: Model name sent in every request.
            dimensions: Expected vector length; any other length is an error.
            api_key: Bearer key, or ``None`` for servers that need none.
            timeout_s: Per-request timeout (connect, read, write, pool).
            batch_size: Texts per request.
            api_key_env: The key's variable name, only to word a 401 error.
        """
        self.model_id = model
        self.dimensions = dimensions
        self._url = f"{base_url}/embeddings"
        self._batch_size = batch_size
        self._key_hint = api_key_env
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout_s)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` in batches; returns float32 unit rows.

        Raises:
            Unavailable: Transport failure, non-2xx, malformed JSON, a missing
                or extra vector, a wrong length, or a zero or non-finite vector.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single str")
        if len(texts) == 0:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        batches = [
            self._embed_batch(list(texts[start : start + self._batch_size]))
            for start in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(batches, axis=0)

    def close(self) -> None:
        """Close the pooled connections."""
        self._client.close()

    def __enter__(self) -> HttpEmbeddingProvider:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _embed_batch(self, batch: list[str]) -> np.ndarray:
        body = post_json(
            self._client,
            self._url,
            payload={"model": self.model_id, "input": batch},
            headers=self._headers,
            provider=_PROVIDER,
            key_hint=self._key_hint,
        )
        vectors = self._parse(body, expected=len(batch))
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if not np.all(np.isfinite(vectors)) or np.any(norms == 0):
            raise malformed(_PROVIDER, self._where, "a vector is all zeros or holds NaN/inf values")
        return (vectors / norms).astype(np.float32)

    @property
    def _where(self) -> str:
        return f"POST {redact_url(self._url)}"

    def _parse(self, body: dict[str, Any], *, expected: int) -> np.ndarray:
        data = body.get("data")
        if not isinstance(data, list):
            raise malformed(_PROVIDER, self._where, "no `data` list in the response")
        if len(data) != expected:
            raise malformed(
                _PROVIDER, self._where, f"sent {expected} inputs, got {len(data)} vectors"
            )
        out = np.empty((expected, self.dimensions), dtype=np.float64)
        seen: set[int] = set()
        for position, item in enumerate(data):
            embedding = item.get("embedding") if isinstance(item, dict) else None
            # The spec orders `data` by `index`; honour `index` when present
            # rather than trusting list order.
            index = item.get("index", position) if isinstance(item, dict) else position
            if not isinstance(index, int) or not 0 <= index < expected or index in seen:
                raise malformed(_PROVIDER, self._where, f"bad or repeated index {index!r}")
            if not isinstance(embedding, list):
                raise malformed(
                    _PROVIDER,
                    self._where,
                    f"item {position} has no `embedding` list (base64 output is not supported)",
                )
            if len(embedding) != self.dimensions:
                raise malformed(
                    _PROVIDER,
                    self._where,
                    f"model {self.model_id!r} returned {len(embedding)} dimensions, "
                    f"settings say {self.dimensions}",
                    suggestion=f"Set embeddings.dimensions to {len(embedding)} (the length "
                    "this model returns), or point embeddings.model at the intended model.",
                )
            try:
                out[index] = np.asarray(embedding, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise malformed(
                    _PROVIDER, self._where, f"item {position} holds non-numbers"
                ) from exc
            seen.add(index)
        return out

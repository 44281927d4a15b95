"""The embedding provider seam: one Protocol, one settings value, one factory.

Three choices, picked by ``EmbeddingSettings.provider``:

- ``none``: no provider (the factory returns ``None``); callers fall back to
  keyword search and ``degraded_dedup``.
- ``local``: all-MiniLM-L6-v2 (int8 ONNX) shipped inside an installed
  package, run on CPU, never touching the network (``local_embeddings``),
  in this process or in the user's shared worker (``worker_embeddings``).
- ``http``: any OpenAI-compatible ``/v1/embeddings`` endpoint: Ollama, vLLM,
  OpenAI (``http_embeddings``).

Every provider returns float32 rows of unit length, so a dot product is the
cosine similarity whichever provider made the vectors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from brainkeep.errors import InvalidInput
from brainkeep.providers._http import read_api_key, validate_base_url
from brainkeep.providers.http_embeddings import HTTP_BATCH_SIZE, HttpEmbeddingProvider
from brainkeep.providers.local_embeddings import (
    LOCAL_BATCH_SIZE,
    LOCAL_DIMENSIONS,
    LOCAL_MODEL_ALIASES,
    LocalEmbeddingProvider,
)
from brainkeep.providers.worker_embeddings import WorkerEmbeddingProvider, worker_socket

EmbeddingProviderName = Literal["none", "local", "http"]


class EmbeddingProvider(Protocol):
    """Turns texts into unit-length float32 vectors."""

    @property
    def name(self) -> str:
        """The provider kind: ``local`` or ``http``."""
        ...

    @property
    def model_id(self) -> str:
        """The vector space the rows live in; store it beside every vector."""
        ...

    @property
    def dimensions(self) -> int:
        """The length of every row ``embed`` returns."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into a float32 array of shape ``(len(texts), dimensions)``.

        Rows are L2-normalized. Raises ``Unavailable`` when the provider
        cannot serve.
        """
        ...


@dataclass(frozen=True)
class EmbeddingSettings:
    """How to build the embedding provider (read once by the composition root).

    Attributes:
        provider: ``none``, ``local`` or ``http``.
        model: ``local``: ``all-MiniLM-L6-v2`` (default, the only one
            shipped); ``http``: the model name the endpoint serves (required).
        base_url: ``http`` only: the OpenAI-style API root, including
            ``/v1`` (e.g. ``http://127.0.0.1:11434/v1``); we POST to
            ``{base_url}/embeddings``.
        dimensions: ``http``: the vector length the model returns (required;
            responses are checked against it). ``local``: 384 or unset.
        api_key_env: ``http`` only: the NAME of the environment variable that
            holds the bearer key. The key itself never lives in config.
        timeout_s: ``http`` only: per-request timeout in seconds.
        batch_size: texts per model run (``local``, default 16) or per request
            (``http``, default 64); unset picks the provider's default.
        worker: ``local`` only: ``process`` runs the model in this process,
            ``host`` in the user's shared embedding worker
            (``worker_embeddings``).
    """

    provider: EmbeddingProviderName = "none"
    model: str | None = None
    base_url: str | None = None
    dimensions: int | None = None
    api_key_env: str | None = None
    timeout_s: float = 30.0
    batch_size: int | None = None
    worker: Literal["process", "host"] = "process"


def make_embedding_provider(
    settings: EmbeddingSettings, env: Mapping[str, str]
) -> EmbeddingProvider | None:
    """Build the configured embedding provider, or ``None`` for ``none``.

    Args:
        settings: The embedding section of the brain's config.
        env: The environment to read ``api_key_env`` from; the composition
            root passes ``os.environ``, tests pass a dict.

    Returns:
        A provider (models load lazily, on the first ``embed``), or ``None``.

    Raises:
        InvalidInput: The settings are incomplete or contradictory, or the
            named API key variable is unset.
    """
    if settings.batch_size is not None and settings.batch_size < 1:
        raise InvalidInput(
            f"embedding batch_size must be at least 1, got {settings.batch_size}.",
            suggestion="Set embeddings.batch_size to a positive integer, or leave it unset.",
            field="batch_size",
        )
    if settings.timeout_s <= 0:
        raise InvalidInput(
            f"embedding timeout_s must be positive, got {settings.timeout_s}.",
            suggestion="Set embeddings.timeout_s to a number of seconds such as 30.",
            field="timeout_s",
        )
    if settings.worker not in ("process", "host"):
        raise InvalidInput(
            f"Unknown embeddings.worker {settings.worker!r}.",
            suggestion="Set embeddings.worker to process or host.",
            field="worker",
        )
    if settings.provider == "none":
        return None
    if settings.provider == "local":
        return _make_local(settings, env)
    if settings.worker == "host":
        raise InvalidInput(
            "embeddings.worker host shares the local model; it does not apply to the "
            f"{settings.provider} provider.",
            suggestion="Set embeddings.worker to process, or embeddings.provider to local.",
            field="worker",
        )
    if settings.provider == "http":
        return _make_http(settings, env)
    raise InvalidInput(
        f"Unknown embedding provider {settings.provider!r}.",
        suggestion="Set embeddings.provider to one of: none, local, http.",
        field="provider",
    )


def _make_local(
    settings: EmbeddingSettings, env: Mapping[str, str]
) -> LocalEmbeddingProvider | WorkerEmbeddingProvider:
    if settings.model is not None and settings.model not in LOCAL_MODEL_ALIASES:
        raise InvalidInput(
            f"The local embedding provider does not ship model {settings.model!r}.",
            suggestion=(
                "Leave embeddings.model unset (all-MiniLM-L6-v2 is the model shipped "
                "for offline use) or use provider `http` to reach another model."
            ),
            field="model",
        )
    if settings.dimensions is not None and settings.dimensions != LOCAL_DIMENSIONS:
        raise InvalidInput(
            f"all-MiniLM-L6-v2 makes {LOCAL_DIMENSIONS}-dimensional vectors, "
            f"not {settings.dimensions}.",
            suggestion=f"Leave embeddings.dimensions unset or set it to {LOCAL_DIMENSIONS}.",
            field="dimensions",
        )
    batch_size = settings.batch_size or LOCAL_BATCH_SIZE
    if settings.worker == "host":
        return WorkerEmbeddingProvider(worker_socket(env), env=env, batch_size=batch_size)
    return LocalEmbeddingProvider(batch_size=batch_size)


def _make_http(settings: EmbeddingSettings, env: Mapping[str, str]) -> HttpEmbeddingProvider:
    if not settings.model:
        raise InvalidInput(
            "The http embedding provider needs a model name.",
            suggestion="Set embeddings.model to the model the endpoint serves, "
            "e.g. nomic-embed-text or text-embedding-3-small.",
            field="model",
        )
    if settings.dimensions is None or settings.dimensions < 1:
        raise InvalidInput(
            "The http embedding provider needs the model's vector length.",
            suggestion="Set embeddings.dimensions to the length the model returns "
            "(e.g. 768 for nomic-embed-text, 1536 for text-embedding-3-small).",
            field="dimensions",
        )
    base_url = validate_base_url(
        settings.base_url, field="base_url", example="http://127.0.0.1:11434/v1"
    )
    return HttpEmbeddingProvider(
        base_url=base_url,
        model=settings.model,
        dimensions=settings.dimensions,
        api_key=read_api_key(settings.api_key_env, env),
        timeout_s=settings.timeout_s,
        batch_size=settings.batch_size or HTTP_BATCH_SIZE,
        api_key_env=settings.api_key_env,
    )

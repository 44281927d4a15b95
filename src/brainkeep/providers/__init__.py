"""Optional providers: sentence embeddings and a chat LLM.

Both are optional by design: with no embedding provider brainkeep falls back
to keyword search, and with no chat LLM ``synthesize`` answers
``unavailable``. Each failure of a configured provider is raised as
``brainkeep.errors.Unavailable`` (never a fake answer); bad settings raise
``InvalidInput`` when the provider is built.
"""

from __future__ import annotations

from brainkeep.providers.chat import ChatProvider, ChatResult, ChatSettings, make_chat_provider
from brainkeep.providers.embeddings import (
    EmbeddingProvider,
    EmbeddingSettings,
    make_embedding_provider,
)


def close_provider(provider: object) -> None:
    """Release a provider's resources (HTTP connections, model session), if it holds any.

    The Protocols stay minimal, so test fakes need no ``close``; the
    composition root calls this on shutdown for whatever it built.
    """
    close = getattr(provider, "close", None)
    if callable(close):
        close()


__all__ = [
    "ChatProvider",
    "ChatResult",
    "ChatSettings",
    "EmbeddingProvider",
    "EmbeddingSettings",
    "close_provider",
    "make_chat_provider",
    "make_embedding_provider",
]

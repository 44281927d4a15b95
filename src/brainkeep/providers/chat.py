"""The chat LLM seam: one Protocol, one result value, one settings value, one factory.

``ChatSettings.provider`` picks the implementation:

- ``none``: no LLM (the factory returns ``None``); ``synthesize`` then
  answers ``unavailable`` instead of inventing text.
- ``openai``: any OpenAI-compatible ``POST {base_url}/chat/completions``
  (OpenAI, Ollama, vLLM, llama.cpp server, OpenRouter) — ``openai_chat``.
- ``anthropic``: the Anthropic Messages API — ``anthropic_chat``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from brainkeep.errors import InvalidInput
from brainkeep.providers._http import read_api_key, require_api_key, validate_base_url
from brainkeep.providers.anthropic_chat import ANTHROPIC_BASE_URL, AnthropicChat
from brainkeep.providers.chat_result import ChatResult
from brainkeep.providers.openai_chat import OpenAICompatibleChat

__all__ = ["ChatProvider", "ChatProviderName", "ChatResult", "ChatSettings", "make_chat_provider"]

ChatProviderName = Literal["none", "openai", "anthropic"]


class ChatProvider(Protocol):
    """Answers one system + user prompt pair."""

    @property
    def name(self) -> str:
        """The provider kind: ``openai`` or ``anthropic``."""
        ...

    @property
    def model(self) -> str:
        """The model requested on every call."""
        ...

    def complete(self, system: str, user: str, *, max_tokens: int = 1024) -> ChatResult:
        """Return the model's answer to ``user`` under the ``system`` prompt.

        Raises ``Unavailable`` on timeout, connection failure, non-2xx,
        refusal, or empty or malformed output.
        """
        ...


@dataclass(frozen=True)
class ChatSettings:
    """How to build the chat provider (read once by the composition root).

    Attributes:
        provider: ``none``, ``openai`` (OpenAI-compatible) or ``anthropic``.
        model: The model name to request (required unless ``none``).
        base_url: ``openai``: the API root including ``/v1`` (required, e.g.
            ``https://api.openai.com/v1`` or ``http://127.0.0.1:11434/v1``).
            ``anthropic``: defaults to ``https://api.anthropic.com``.
        api_key_env: NAME of the environment variable holding the key.
            ``anthropic`` defaults to ``ANTHROPIC_API_KEY``; ``openai`` sends
            no key when unset (local servers need none).
        timeout_s: Per-request timeout in seconds; completions are slow.
        temperature: Sent only when set; otherwise the server's default.
    """

    provider: ChatProviderName = "none"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    timeout_s: float = 60.0
    temperature: float | None = None


def make_chat_provider(settings: ChatSettings, env: Mapping[str, str]) -> ChatProvider | None:
    """Build the configured chat provider, or ``None`` for ``none``.

    Args:
        settings: The chat section of the brain's config.
        env: The environment to read ``api_key_env`` from; the composition
            root passes ``os.environ``, tests pass a dict.

    Raises:
        InvalidInput: Missing model or base_url, unknown provider, or the
            named API key variable is unset.
    """
    if settings.provider == "none":
        return None
    if settings.timeout_s <= 0:
        raise InvalidInput(
            f"chat timeout_s must be positive, got {settings.timeout_s}.",
            suggestion="Set chat.timeout_s to a number of seconds such as 60.",
            field="timeout_s",
        )
    if settings.provider not in ("openai", "anthropic"):
        raise InvalidInput(
            f"Unknown chat provider {settings.provider!r}.",
            suggestion="Set chat.provider to one of: none, openai, anthropic.",
            field="provider",
        )
    if not settings.model:
        raise InvalidInput(
            f"The {settings.provider} chat provider needs a model name.",
            suggestion="Set chat.model, e.g. gpt-4o-mini, llama3.1:8b or "
            "claude-3-5-haiku-20241022.",
            field="model",
        )
    if settings.provider == "openai":
        base_url = validate_base_url(
            settings.base_url, field="base_url", example="https://api.openai.com/v1"
        )
        return OpenAICompatibleChat(
            base_url=base_url,
            model=settings.model,
            api_key=read_api_key(settings.api_key_env, env),
            api_key_env=settings.api_key_env,
            timeout_s=settings.timeout_s,
            temperature=settings.temperature,
        )
    key_env = settings.api_key_env or "ANTHROPIC_API_KEY"
    base_url = validate_base_url(
        settings.base_url or ANTHROPIC_BASE_URL, field="base_url", example=ANTHROPIC_BASE_URL
    )
    return AnthropicChat(
        base_url=base_url,
        model=settings.model,
        api_key=require_api_key(key_env, env),
        api_key_env=key_env,
        timeout_s=settings.timeout_s,
        temperature=settings.temperature,
    )

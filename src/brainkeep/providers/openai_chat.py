"""Chat through any OpenAI-compatible ``POST {base_url}/chat/completions``.

We send ``max_tokens`` (not ``max_completion_tokens``): every compatible
server (Ollama, vLLM, llama.cpp, OpenRouter) and OpenAI's GPT-4o/4.1 family
accept it; OpenAI's o-series reasoning models do not, and are not supported.
"""

from __future__ import annotations

from typing import Any

import httpx

from brainkeep.errors import Unavailable
from brainkeep.providers._http import malformed, post_json, read_usage, redact_url
from brainkeep.providers.chat_result import ChatResult
from brainkeep.providers.pricing import estimate_usd

_PROVIDER = "OpenAI-compatible chat"


class OpenAICompatibleChat:
    """An OpenAI-style chat completions client; one pooled ``httpx.Client``."""

    name = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None,
        api_key_env: str | None = None,
        timeout_s: float = 60.0,
        temperature: float | None = None,
    ) -> None:
        """Create the client; nothing is sent until ``complete``.

        Args:
            base_url: API root including ``/v1``, without trailing slash.
            model: Model name sent in every request.
            api_key: Bearer key, or ``None`` for servers that need none.
            api_key_env: The key's variable name, only to word a 401 error.
            timeout_s: Per-request timeout.
            temperature: Sent only when set.
        """
        self.model = model
        self._url = f"{base_url}/chat/completions"
        self._key_hint = api_key_env
        self._temperature = temperature
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout_s)

    def complete(self, system: str, user: str, *, max_tokens: int = 1024) -> ChatResult:
        """Answer ``user`` under ``system``; see ``ChatProvider.complete``.

        Raises:
            Unavailable: Transport failure, non-2xx, refusal, content filter,
                or empty or malformed output.
        """
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "max_tokens": max_tokens,
        }
        if self._temperature is not None:
            payload["temperature"] = self._temperature
        body = post_json(
            self._client,
            self._url,
            payload=payload,
            headers=self._headers,
            provider=_PROVIDER,
            key_hint=self._key_hint,
        )
        return self._parse(body)

    def close(self) -> None:
        """Close the pooled connections."""
        self._client.close()

    def __enter__(self) -> OpenAICompatibleChat:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _parse(self, body: dict[str, Any]) -> ChatResult:
        where = f"POST {redact_url(self._url)}"
        choices = body.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise malformed(_PROVIDER, where, "no `choices` in the response")
        choice = choices[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise malformed(_PROVIDER, where, "choices[0] has no `message`")
        refusal = message.get("refusal")
        if refusal:
            raise Unavailable(
                "The chat model refused to answer.",
                suggestion="Rephrase the request or use another model; brainkeep "
                "does not retry refusals.",
                detail=f"{where}: refusal: {str(refusal)[:500]}",
            )
        if choice.get("finish_reason") == "content_filter":
            raise Unavailable(
                "The chat provider's content filter blocked the answer.",
                suggestion="Rephrase the request or use another model or provider.",
                detail=f"{where}: finish_reason=content_filter",
            )
        text = message.get("content")
        if not isinstance(text, str) or not text.strip():
            raise Unavailable(
                "The chat model returned no text.",
                suggestion="Retry; if it persists, raise max_tokens or try another model.",
                detail=f"{where}: empty content, finish_reason={choice.get('finish_reason')!r}",
            )
        reported = body.get("model")
        # Price by the model that answered (a dated snapshot), not the alias asked for.
        model = reported if isinstance(reported, str) and reported else self.model
        input_tokens, output_tokens = read_usage(body, "prompt_tokens", "completion_tokens")
        return ChatResult(
            text=text,
            model=model,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            usd_estimate=estimate_usd(model, input_tokens, output_tokens),
        )

"""Chat through the Anthropic Messages API (``POST {base_url}/v1/messages``)."""

from __future__ import annotations

from typing import Any

import httpx

from brainkeep.errors import Unavailable
from brainkeep.providers._http import malformed, post_json, read_usage, redact_url
from brainkeep.providers.chat_result import ChatResult
from brainkeep.providers.pricing import estimate_usd

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
# The Messages API version whose request and response shape this module speaks.
ANTHROPIC_VERSION = "2023-06-01"
_PROVIDER = "Anthropic"


class AnthropicChat:
    """An Anthropic Messages client; one pooled ``httpx.Client`` per instance."""

    name = "anthropic"

    def __init__(
        self,
        *,
        model: str,
        api_key: str,
        base_url: str = ANTHROPIC_BASE_URL,
        api_key_env: str | None = None,
        timeout_s: float = 60.0,
        temperature: float | None = None,
    ) -> None:
        """Create the client; nothing is sent until ``complete``.

        Args:
            model: Model id sent in every request.
            api_key: The ``x-api-key`` value.
            base_url: API root without ``/v1`` and without trailing slash.
            api_key_env: The key's variable name, only to word a 401 error.
            timeout_s: Per-request timeout.
            temperature: Sent only when set.
        """
        self.model = model
        self._url = f"{base_url}/v1/messages"
        self._key_hint = api_key_env
        self._temperature = temperature
        self._headers = {
            "x-api-key": api_key,
            "anthropic-version": ANTHROPIC_VERSION,
        }
        self._client = httpx.Client(timeout=timeout_s)

    def complete(self, system: str, user: str, *, max_tokens: int = 1024) -> ChatResult:
        """Answer ``user`` under ``system``; see ``ChatProvider.complete``.

        Raises:
            Unavailable: Transport failure, non-2xx (including 529 overloaded),
                ``stop_reason: refusal``, or empty or malformed output.
        """
        payload: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "system": system,
            "messages": [{"role": "user", "content": user}],
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

    def __enter__(self) -> AnthropicChat:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _parse(self, body: dict[str, Any]) -> ChatResult:
        where = f"POST {redact_url(self._url)}"
        stop_reason = body.get("stop_reason")
        if stop_reason == "refusal":
            raise Unavailable(
                "The Anthropic model refused to answer.",
                suggestion="Rephrase the request or use another model; brainkeep "
                "does not retry refusals.",
                detail=f"{where}: stop_reason=refusal",
            )
        content = body.get("content")
        if not isinstance(content, list):
            raise malformed(_PROVIDER, where, "no `content` list in the response")
        # Only text blocks are the answer; thinking or tool blocks are not.
        text = "".join(
            block["text"]
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        )
        if not text.strip():
            raise Unavailable(
                "The Anthropic model returned no text.",
                suggestion="Retry; if it persists, raise max_tokens or try another model.",
                detail=f"{where}: no text blocks, stop_reason={stop_reason!r}",
            )
        reported = body.get("model")
        # Price by the model that answered (a dated snapshot), not the alias asked for.
        model = reported if isinstance(reported, str) and reported else self.model
        input_tokens, output_tokens = read_usage(body, "input_tokens", "output_tokens")
        return ChatResult(
            text=text,
            model=model,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            usd_estimate=estimate_usd(model, input_tokens, output_tokens),
        )

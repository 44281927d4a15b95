"""Shared plumbing for HTTP providers: config checks and one POST helper.

This is the one place where httpx failures become ``Unavailable``, so every
HTTP provider reports a refused connection, a timeout or a 500 the same way.
Secrets never reach an error: details carry the URL without userinfo and the
server's own error message, never our request headers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from brainkeep.errors import InvalidInput, Unavailable

# Enough of a server's error body to diagnose it, short enough for a log line.
_BODY_EXCERPT_CHARS = 500


def validate_base_url(base_url: str | None, *, field: str, example: str) -> str:
    """Return ``base_url`` without a trailing slash, or raise ``InvalidInput``.

    Args:
        base_url: The configured API root.
        field: The settings field name, for the error.
        example: A correct value to show in the suggestion.

    Raises:
        InvalidInput: The URL is missing or not http(s).
    """
    if not base_url or not base_url.startswith(("http://", "https://")):
        raise InvalidInput(
            f"Provider base_url must be an http:// or https:// URL, got {base_url!r}.",
            suggestion=f"Set {field} to the API root, e.g. {example}.",
            field=field,
        )
    return base_url.rstrip("/")


def read_api_key(api_key_env: str | None, env: Mapping[str, str]) -> str | None:
    """Look up the optional API key named by ``api_key_env`` in ``env``.

    Args:
        api_key_env: The variable's name, or ``None`` for no key (local servers
            such as Ollama and vLLM need none).
        env: The environment mapping the composition root passed in.

    Returns:
        The key, or ``None`` when no variable is named.

    Raises:
        InvalidInput: A variable is named but unset or empty.
    """
    if api_key_env is None:
        return None
    return require_api_key(api_key_env, env)


def require_api_key(api_key_env: str, env: Mapping[str, str]) -> str:
    """Return the API key held by the variable ``api_key_env`` in ``env``.

    Raises:
        InvalidInput: The variable is unset or empty.
    """
    key = env.get(api_key_env, "").strip()
    if not key:
        raise InvalidInput(
            f"The environment variable {api_key_env} (named by api_key_env) is not set.",
            suggestion=f"Export {api_key_env}=<your key> before starting brainkeep, "
            "or clear api_key_env if the endpoint needs no key.",
            field="api_key_env",
        )
    return key


def redact_url(url: str) -> str:
    """Drop any ``user:password@`` part so a URL is safe to put in an error."""
    parsed = httpx.URL(url)
    if not parsed.userinfo:
        return url
    return str(parsed.copy_with(username=None, password=None))


def post_json(
    client: httpx.Client,
    url: str,
    *,
    payload: Mapping[str, Any],
    headers: Mapping[str, str],
    provider: str,
    key_hint: str | None,
) -> dict[str, Any]:
    """POST ``payload`` as JSON and return the decoded JSON object.

    Args:
        client: The provider's client (it holds the timeout).
        url: The endpoint.
        payload: The request body.
        headers: Extra headers (auth lives here; it is never echoed back).
        provider: A human name for messages, e.g. ``"OpenAI-compatible chat"``.
        key_hint: The api_key_env name, so a 401 can say which variable to fix.

    Returns:
        The response body, which is guaranteed to be a JSON object.

    Raises:
        Unavailable: Connection refused, timeout, any other transport error,
            a non-2xx status, or a body that is not a JSON object.
    """
    where = f"POST {redact_url(url)}"
    try:
        response = client.post(url, json=payload, headers=dict(headers))
    except httpx.TimeoutException as exc:
        raise Unavailable(
            f"The {provider} endpoint did not answer in time.",
            suggestion="Check that the server is up and not overloaded, or raise "
            "timeout_s in the provider settings.",
            detail=f"{where}: {type(exc).__name__} after {_timeout_text(client)}",
        ) from exc
    except httpx.ConnectError as exc:
        raise Unavailable(
            f"Cannot connect to the {provider} endpoint.",
            suggestion="Start the server or fix base_url in the provider settings.",
            detail=f"{where}: {type(exc).__name__}: {exc}",
        ) from exc
    except httpx.TransportError as exc:
        raise Unavailable(
            f"The connection to the {provider} endpoint failed.",
            suggestion="Retry; if it persists, check the server and base_url.",
            detail=f"{where}: {type(exc).__name__}: {exc}",
        ) from exc

    if not response.is_success:
        raise Unavailable(
            f"The {provider} endpoint answered HTTP {response.status_code}.",
            suggestion=_status_suggestion(response.status_code, key_hint),
            detail=f"{where}: HTTP {response.status_code}: {_excerpt(response)}",
        )
    try:
        body = response.json()
    except ValueError as exc:
        raise Unavailable(
            f"The {provider} endpoint returned a body that is not JSON.",
            suggestion="Check that base_url points at the API root (an OpenAI-style "
            "server usually ends in /v1), not a web page or a proxy.",
            detail=f"{where}: HTTP {response.status_code}: {_excerpt(response)}",
        ) from exc
    if not isinstance(body, dict):
        raise malformed(provider, where, f"expected a JSON object, got {type(body).__name__}")
    return body


def malformed(
    provider: str, where: str, problem: str, *, suggestion: str | None = None
) -> Unavailable:
    """Build the error for a 2xx response whose JSON lacks what we need."""
    return Unavailable(
        f"The {provider} endpoint returned a response brainkeep cannot read.",
        suggestion=suggestion
        or "Check that the endpoint really speaks this API (base_url and "
        "provider kind match the server) and that the model name is right.",
        detail=f"{where}: {problem}",
    )


def _status_suggestion(status: int, key_hint: str | None) -> str:
    if status in (401, 403):
        where = f"the {key_hint} environment variable" if key_hint else "api_key_env"
        return f"Check the API key in {where}: the server rejected it."
    if status == 404:
        return "Check base_url and the model name: the server has no such route or model."
    if status == 429:
        return "The server is rate-limiting or out of quota; retry later or raise the limit."
    if status >= 500:
        return "The provider's server failed; retry later or check its logs."
    return "The server rejected the request; check the model name and provider settings."


def _excerpt(response: httpx.Response) -> str:
    # Prefer the provider's own error message (OpenAI and Anthropic both use
    # {"error": {"message": ...}}); fall back to the raw text.
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"][:_BODY_EXCERPT_CHARS]
        if isinstance(error, str):
            return error[:_BODY_EXCERPT_CHARS]
    text = response.text.strip()
    return text[:_BODY_EXCERPT_CHARS] if text else "(empty body)"


def _timeout_text(client: httpx.Client) -> str:
    read = client.timeout.read
    return f"{read}s" if read is not None else "the configured timeout"


def read_usage(
    body: dict[str, Any], input_key: str, output_key: str
) -> tuple[int | None, int | None]:
    """Read two token counts from ``body["usage"]``; absent or non-integer ones are ``None``."""
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return None, None

    def count(key: str) -> int | None:
        value = usage.get(key)
        # bool is an int subclass; a count of True is not a count.
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return count(input_key), count(output_key)

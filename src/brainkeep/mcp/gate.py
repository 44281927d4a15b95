"""The ASGI gate in front of the SDK's Streamable HTTP app at ``/mcp``.

Order (cheapest refusal first, and nothing is buffered for a stranger):

0. GET (a standalone SSE stream; useless when stateless) → 405
1. per-IP rate limit                         → 429 + Retry-After
2. declared ``Content-Length`` over the cap  → 413
3. bearer token or OAuth access token (missing/invalid/expired/revoked)
                                             → 401 + WWW-Authenticate
4. per-token rate limit                      → 429 + Retry-After
5. read the body up to the cap               → 413
6. hand over to the SDK under a deadline     → 504 when it passes
   (any unexpected exception                 → 500; never a stack trace)

Every refusal is a JSON-RPC error object (``id`` from the request when it
could be read), so the official MCP client surfaces it as a normal error and
curl users still get JSON. The authenticated ``Caller`` travels to the tool
handler in the ASGI scope (``auth.CALLER_SCOPE_KEY``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from brainkeep.core.oauth.service import OAuthService, is_oauth_secret
from brainkeep.core.token_callers import caller_for_token
from brainkeep.core.tokens import TokenCheck, TokenService
from brainkeep.mcp.auth import CALLER_SCOPE_KEY, bearer_secret, challenge, sdk_user_for
from brainkeep.rate_limits import RateLimiter, retry_after_header

log = logging.getLogger("brainkeep.http")

# JSON-RPC error codes for transport-level refusals (server-defined range).
UNAUTHORIZED = -32001
RATE_LIMITED = -32002
TIMED_OUT = -32003
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603


@dataclass(frozen=True)
class GateLimits:
    """The HTTP limits, read once from config by the composition root."""

    max_body_bytes: int
    request_timeout_s: float


class BodyTooLarge(Exception):
    """The streamed body passed the cap."""


def rpc_error_body(
    code: int, message: str, *, request_id: Any = None, data: dict[str, Any] | None = None
) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data:
        error["data"] = data
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode("utf-8")


async def send_json(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Send one complete JSON response."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def read_body(receive: Receive, cap: int) -> bytes:
    """The whole request body, refusing to hold more than ``cap`` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap:
            raise BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def replay_body(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that yields the buffered body once, then defers to the real one
    (later reads wait for the client's disconnect, as usual)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def request_id_of(body: bytes) -> Any:
    """The JSON-RPC id of a single request body, if it can be read."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    if isinstance(parsed, dict):
        value = parsed.get("id")
        if isinstance(value, str | int) and not isinstance(value, bool):
            return value
    return None


def _declared_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


@dataclass(frozen=True)
class OAuthCheck:
    """OAuth access tokens at the gate: verified for this resource (the audience),
    and where a refused client finds the protected-resource metadata (RFC 9728)."""

    service: OAuthService
    resource: str
    resource_metadata: str


class McpGate:
    """Auth, limits and a deadline around the SDK's ASGI app (see module doc)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        tokens: TokenService,
        ip_limiter: RateLimiter,
        token_limiter: RateLimiter,
        limits: GateLimits,
        oauth: OAuthCheck | None = None,
    ) -> None:
        self.app = app
        self.tokens = tokens
        self.oauth = oauth
        self.ip_limiter = ip_limiter
        self.token_limiter = token_limiter
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "GET":
            # brainkeep never sends server-initiated messages, so a standalone SSE
            # stream would only idle until the deadline. The spec allows 405.
            await send_json(
                send,
                405,
                rpc_error_body(INVALID_REQUEST, "GET is not supported: POST JSON-RPC requests."),
                [(b"allow", b"POST")],
            )
            return
        # Whether a response has begun: past that point an error can only be logged.
        started: list[bool] = []

        async def watched_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.append(True)
            await send(message)

        body: bytes | None = None
        try:
            body = await self._admit(scope, receive, watched_send)
            if body is None:
                return
            await self._forward(scope, receive, watched_send, body, started)
        except Exception:  # the edge: log it, answer JSON, never leak a trace
            log.exception("HTTP request to /mcp failed")
            if not started:
                await send_json(
                    send,
                    500,
                    rpc_error_body(
                        INTERNAL_ERROR,
                        "Internal server error.",
                        request_id=request_id_of(body or b""),
                    ),
                )

    async def _admit(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """Steps 1-5: the body when the request may proceed, else None (answered)."""
        client = scope.get("client")
        ip = client[0] if client else "unknown"
        wait = self.ip_limiter.acquire(f"ip:{ip}")
        if wait > 0:
            await self._too_many(send, wait, "this address")
            return None
        cap = self.limits.max_body_bytes
        declared = _declared_length(scope)
        if declared is not None and declared > cap:
            await self._too_large(send)
            return None

        check = self._verify(bearer_secret(scope.get("headers", ())))
        if check.token is None:
            reason = check.reason or "invalid"
            message, suggestion, www = challenge(
                reason, self.oauth.resource_metadata if self.oauth else None)
            # Only the reason is logged: never the presented secret.
            log.info("refused HTTP request from %s: %s token", ip, reason)
            await send_json(
                send,
                401,
                rpc_error_body(
                    UNAUTHORIZED,
                    message,
                    data={"error": "unauthorized", "reason": reason, "suggestion": suggestion},
                ),
                [(b"www-authenticate", www.encode("latin-1"))],
            )
            return None
        wait = self.token_limiter.acquire(f"token:{check.token.id}")
        if wait > 0:
            await self._too_many(send, wait, f"token {check.token.name!r}")
            return None

        try:
            body = await read_body(receive, cap)
        except BodyTooLarge:
            await self._too_large(send)
            return None
        scope[CALLER_SCOPE_KEY] = caller_for_token(check.token)
        scope["user"] = sdk_user_for(check.token)
        return body

    def _verify(self, secret: str | None) -> TokenCheck:
        """A bearer token, or an OAuth access token mapped to the same principal
        (core/oauth/service.principal_of), so both meet the same caller, scope
        checks, rate limits and usage log below."""
        if self.oauth is not None and is_oauth_secret(secret):
            return self.oauth.service.verify_access(secret, self.oauth.resource)
        return self.tokens.verify(secret)

    async def _forward(
        self, scope: Scope, receive: Receive, send: Send, body: bytes, started: list[bool]
    ) -> None:
        """Step 6: replay the buffered body to the SDK app under the deadline."""
        timeout = self.limits.request_timeout_s
        with anyio.move_on_after(timeout) as deadline:
            await self.app(scope, replay_body(body, receive), send)
        if deadline.cancelled_caught and started:
            # A streamed response was cut: close it cleanly rather than leave it open.
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        if deadline.cancelled_caught:
            # The worker thread may still finish the call; its result is dropped,
            # and the client was never told it succeeded.
            log.warning("request exceeded the %.0fs deadline", timeout)
            await send_json(
                send,
                504,
                rpc_error_body(
                    TIMED_OUT,
                    f"The request took longer than {timeout:g}s and was abandoned.",
                    request_id=request_id_of(body),
                    data={"suggestion": "Retry; narrow the call (smaller limit or budget), or "
                          "raise http.request_timeout_s on the server."},
                ),
            )

    async def _too_many(self, send: Send, wait: float, who: str) -> None:
        retry = retry_after_header(wait)
        await send_json(
            send,
            429,
            rpc_error_body(
                RATE_LIMITED,
                f"Rate limit exceeded for {who}; retry in {retry}s.",
                data={"error": "rate_limited", "retry_after": int(retry)},
            ),
            [(b"retry-after", retry.encode())],
        )

    async def _too_large(self, send: Send) -> None:
        cap = self.limits.max_body_bytes
        await send_json(
            send,
            413,
            rpc_error_body(
                INVALID_REQUEST,
                f"Request body exceeds {cap} bytes.",
                data={"error": "payload_too_large", "max_body_bytes": cap,
                      "suggestion": "Send smaller calls (one fact or page per call)."},
            ),
        )

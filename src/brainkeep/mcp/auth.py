"""Bearer-token authentication for MCP over HTTP.

The gate (``mcp/gate.py``) verifies the token and stores the resulting
``Caller`` in the ASGI scope; the MCP tool handler reads it back from the
request the SDK hands it. Token logic itself lives in ``core/tokens.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from brainkeep.core.context import Caller
from brainkeep.core.tokens import ApiToken

# ASGI scope key carrying the authenticated Caller from the gate to the handler.
CALLER_SCOPE_KEY = "brainkeep.caller"
REALM = "brainkeep"

# A request that reached a handler without passing the gate (a wiring bug)
# gets no scopes at all: every operation then answers scope_denied.
UNAUTHENTICATED = Caller(
    remote=True, client_id="remote", transport="http", scopes=frozenset(), token_name=None
)

_MESSAGES = {
    "missing": (
        "Missing bearer token.",
        "Send `Authorization: Bearer <secret>`; create a token on the server with "
        "`brainkeep token create --name NAME --scopes read,write`.",
    ),
    "invalid": (
        "Invalid bearer token.",
        "Check the secret (it is printed once by `brainkeep token create`); list valid "
        "names with `brainkeep token list` on the server.",
    ),
    "expired": (
        "The bearer token has expired.",
        "Create a new token with `brainkeep token create` (see --expires).",
    ),
    "revoked": (
        "The bearer token has been revoked.",
        "Ask the operator for a new token (`brainkeep token create`).",
    ),
}


def bearer_secret(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The secret of an ``Authorization: Bearer`` header, or None."""
    for key, value in headers:
        if key.lower() == b"authorization":
            scheme, _, secret = value.decode("latin-1").strip().partition(" ")
            if scheme.lower() == "bearer" and secret.strip():
                return secret.strip()
            return None
    return None


@functools.lru_cache(maxsize=1024)  # immutable per token row; verify runs every request
def sdk_user_for(token: ApiToken) -> AuthenticatedUser:
    """The SDK's view of the token (``scope["user"]``): it binds each MCP session
    to the credential that opened it. Carries the token id, never the secret."""
    return AuthenticatedUser(
        AccessToken(token=f"brainkeep-token:{token.id}", client_id=token.name,
                    scopes=list(token.scopes))
    )


def caller_from_request(request: Any) -> Caller:
    """The Caller the gate stored on this HTTP request (fail closed: no scopes)."""
    scope = getattr(request, "scope", None)
    caller = scope.get(CALLER_SCOPE_KEY) if isinstance(scope, dict) else None
    return caller if isinstance(caller, Caller) else UNAUTHENTICATED


def challenge(reason: str, resource_metadata: str | None = None) -> tuple[str, str, str]:
    """(message, suggestion, ``WWW-Authenticate`` value) for a refused token (RFC 6750).

    With OAuth on, ``resource_metadata`` (RFC 9728 §5.1) tells an MCP client
    where discovery starts.
    """
    message, suggestion = _MESSAGES.get(reason, _MESSAGES["invalid"])
    extra = f', resource_metadata="{resource_metadata}"' if resource_metadata else ""
    if reason == "missing":
        # No credentials at all: RFC 6750 §3.1 says omit the error code.
        return message, suggestion, f'Bearer realm="{REALM}"{extra}'
    return message, suggestion, (
        f'Bearer realm="{REALM}", error="invalid_token", error_description="{message}"{extra}'
    )

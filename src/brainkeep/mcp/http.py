"""MCP over Streamable HTTP: the ``/mcp`` endpoint (bearer tokens, OAuth 2.1).

``brainkeep/http_app.py`` composes it with ``/health`` and the console into
the app `serve --http` runs; this module builds only the MCP front's part.

OAuth (mcp/oauth_routes.py) is on whenever an issuer URL is known: the
``--public-url`` a tunnel or proxy exposes, else the loopback address served.

The official SDK serves the protocol with JSON responses. Clients that
``initialize`` get an SDK session (cheaper per call); every other request, and
any whose session is gone after a restart, is served statelessly
(``mcp/routing.py``), so no client depends on server-side session state and a
restart loses nothing. In front of it sits the gate (``mcp/gate.py``: per-IP
and per-token rate limits, body cap, bearer auth, per-request deadline). The
transport only translates: scope checks, privacy fences and usage logging
happen in the dispatcher and below.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import BaseRoute
from starlette.types import ASGIApp

from brainkeep.brain import Brain
from brainkeep.config import Settings
from brainkeep.core.oauth.service import OAuthService
from brainkeep.core.tokens import TokenService
from brainkeep.mcp.auth import caller_from_request
from brainkeep.mcp.gate import GateLimits, McpGate, OAuthCheck
from brainkeep.mcp.oauth_provider import BrainkeepOAuthProvider
from brainkeep.mcp.oauth_routes import oauth_routes
from brainkeep.mcp.routing import SessionRouter
from brainkeep.mcp.server import build_server
from brainkeep.netaddr import is_loopback
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.ops.registry import open_dispatcher
from brainkeep.rate_limits import RateLimiter

MCP_PATH = "/mcp"
# Sessions only save per-request setup (see mcp/routing.py); an expired or
# over-cap one falls back to stateless serving, so these bound memory only.
SESSION_IDLE_S = 600
MAX_SESSIONS = 2000


def _security(bind: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection for loopback binds (as the SDK does for localhost).

    On other addresses the public host name is unknown to us, and bearer
    tokens are never sent ambiently by a browser, so rebinding gains nothing.
    """
    if not is_loopback(bind):
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


def limits_from(settings: Settings) -> tuple[GateLimits, int, int]:
    """(gate limits, per-token rate, per-IP rate) from the config keys ``http.*``."""
    limits = GateLimits(
        max_body_bytes=int(settings.get("http.max_body_bytes")),
        request_timeout_s=float(settings.get("http.request_timeout_s")),
    )
    return (
        limits,
        int(settings.get("http.rate_per_minute")),
        int(settings.get("http.ip_rate_per_minute")),
    )


@dataclass(frozen=True)
class OAuthOptions:
    """OAuth on `serve --http`: the issuer (also the resource's origin) and DCR."""

    issuer: str
    allow_registration: bool = False

    @property
    def resource(self) -> str:
        return f"{self.issuer.rstrip('/')}{MCP_PATH}"

    @property
    def resource_metadata(self) -> str:
        return f"{self.issuer.rstrip('/')}/.well-known/oauth-protected-resource{MCP_PATH}"


@dataclass(frozen=True)
class McpEndpoint:
    """The MCP front's part of the HTTP app (composed by ``brainkeep/http_app.py``).

    Attributes:
        gate: ``/mcp`` behind the gate (rate limits, body cap, bearer/OAuth auth).
        routes: The OAuth routes when OAuth is on (metadata, authorize, token,
            revoke, consent); empty otherwise.
        lifespan: Runs the SDK's session managers for the app's lifetime.
        ip_limiter: The per-address budget other fronts on the same server share.
        dispatcher: The operation dispatcher the endpoint serves (shared with the console).
    """

    gate: ASGIApp
    routes: list[BaseRoute]
    lifespan: Callable[[Any], AbstractAsyncContextManager[None]]
    ip_limiter: RateLimiter
    dispatcher: Dispatcher


def build_mcp_endpoint(brain: Brain, settings: Settings, *, surface: str, bind: str,
                       oauth: OAuthOptions | None = None) -> McpEndpoint:
    """``/mcp`` behind the gate, plus the OAuth routes if on (see ``McpEndpoint``)."""
    dispatcher = open_dispatcher(brain, surface)
    server = build_server(dispatcher, lambda ctx: caller_from_request(ctx.request))
    limits, token_rate, ip_rate = limits_from(settings)
    common: dict[str, Any] = {
        "json_response": True,
        "security_settings": _security(bind),
        # The gate enforces the configured cap first; the SDK's own check stays
        # as a second line at the same size.
        "max_request_body_size": max(1, limits.max_body_bytes),
    }
    sessions = StreamableHTTPSessionManager(
        app=server,
        stateless=False,
        session_idle_timeout=SESSION_IDLE_S,
        max_sessions=MAX_SESSIONS,
        **common,
    )
    stateless = StreamableHTTPSessionManager(app=server, stateless=True, **common)
    tokens = TokenService(brain.store, brain.clock)
    routes: list[BaseRoute] = []
    check = None
    if oauth is not None:
        service = OAuthService(brain.store, brain.clock)
        provider = BrainkeepOAuthProvider(service, oauth.issuer)
        routes += oauth_routes(provider, service, tokens, issuer=oauth.issuer,
                               resource=oauth.resource,
                               allow_registration=oauth.allow_registration)
        check = OAuthCheck(service, oauth.resource, oauth.resource_metadata)
    ip_limiter = RateLimiter(ip_rate)
    gate = McpGate(
        SessionRouter(StreamableHTTPASGIApp(sessions), StreamableHTTPASGIApp(stateless)),
        tokens=tokens,
        ip_limiter=ip_limiter,
        token_limiter=RateLimiter(token_rate),
        limits=limits,
        oauth=check,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        async with sessions.run(), stateless.run():
            yield

    return McpEndpoint(gate, routes, lifespan, ip_limiter, dispatcher)

"""MCP over Streamable HTTP: ``/mcp`` (bearer tokens, OAuth 2.1) and ``GET /health``.

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
import logging
import sys
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from brainkeep import __version__
from brainkeep.asgi_server import QuietExitServer, connection_limits, listen, server_config
from brainkeep.brain import Brain
from brainkeep.config import Settings
from brainkeep.console.app import build_console_app
from brainkeep.core.oauth.service import OAuthService
from brainkeep.core.tokens import TokenService
from brainkeep.errors import InvalidInput
from brainkeep.mcp.auth import caller_from_request
from brainkeep.mcp.gate import GateLimits, McpGate, OAuthCheck
from brainkeep.mcp.limits import RateLimiter
from brainkeep.mcp.oauth_provider import BrainkeepOAuthProvider
from brainkeep.mcp.oauth_routes import oauth_routes
from brainkeep.mcp.routing import SessionRouter
from brainkeep.mcp.server import build_server
from brainkeep.netaddr import is_loopback
from brainkeep.ops.registry import open_dispatcher

log = logging.getLogger("brainkeep.http")

MCP_PATH = "/mcp"
# Sessions only save per-request setup (see mcp/routing.py); an expired or
# over-cap one falls back to stateless serving, so these bound memory only.
SESSION_IDLE_S = 600
MAX_SESSIONS = 2000
SHUTDOWN_GRACE_S = 10
# Connections beyond this get 503 from uvicorn instead of queueing without bound.
MAX_CONCURRENT_CONNECTIONS = 512


def check_bind_allowed(bind: str, tokens: TokenService, oauth_clients: int = 0) -> None:
    """Refuse to expose the brain beyond this machine with no way to authenticate.

    ``oauth_clients``: live OAuth clients when OAuth is on (each can authenticate).

    Raises:
        InvalidInput: ``bind`` is not loopback and no usable token or OAuth client exists.
    """
    if is_loopback(bind) or tokens.has_usable_tokens() or oauth_clients > 0:
        return
    raise InvalidInput(
        f"Refusing to serve on {bind}: it is reachable from other machines and no "
        "bearer token exists, so no agent could ever authenticate.",
        suggestion="Create a token first (`brainkeep token create --name NAME --scopes "
        "read,write`), or bind 127.0.0.1 to serve this machine only.",
        field="bind",
    )


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


async def health(_request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok", "version": __version__})


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


def build_http_app(brain: Brain, settings: Settings, *, surface: str, bind: str,
                   oauth: OAuthOptions | None = None) -> McpFront:
    """The ASGI app: ``/mcp`` behind the gate, ``/health`` open, OAuth routes if on."""
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
    routes = [Route("/health", health, methods=["GET"])]
    check = None
    if oauth is not None:
        service = OAuthService(brain.store, brain.clock)
        provider = BrainkeepOAuthProvider(service, oauth.issuer)
        routes += oauth_routes(provider, service, tokens, issuer=oauth.issuer,
                               resource=oauth.resource,
                               allow_registration=oauth.allow_registration)
        check = OAuthCheck(service, oauth.resource, oauth.resource_metadata)
    gate = McpGate(
        SessionRouter(StreamableHTTPASGIApp(sessions), StreamableHTTPASGIApp(stateless)),
        tokens=tokens,
        ip_limiter=RateLimiter(ip_rate),
        token_limiter=RateLimiter(token_rate),
        limits=limits,
        oauth=check,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with sessions.run(), stateless.run():
            yield

    # The web console (console/): token sign-in, the same dispatcher and read scopes,
    # and the gate's per-address limiter (one budget per address for /mcp and /console).
    console = build_console_app(brain, dispatcher, base="/console", secure_cookies=bool(
        oauth is not None and oauth.issuer.startswith("https://")), ip_limiter=gate.ip_limiter)
    rest = Starlette(routes=[*routes, Mount("/console", app=console)], lifespan=lifespan)
    return McpFront(gate, rest)


class McpFront:
    """``/mcp`` straight to the gate; everything else (health, 404s, lifespan) to Starlette.

    The gate is its own error edge, so Starlette's error and routing layers
    would only add a few coroutine frames to every hot-path message.
    """

    def __init__(self, mcp: ASGIApp, rest: Starlette) -> None:
        self.mcp = mcp
        self.rest = rest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == MCP_PATH:
            await self.mcp(scope, receive, send)
        else:
            await self.rest(scope, receive, send)


def run_http_server(
    brain: Brain, settings: Settings, *, surface: str, bind: str, port: int,
    stop: threading.Event | None = None, public_url: str | None = None,
    allow_registration: bool = False, forwarded_allow_ips: str | None = None,
) -> None:
    """Serve MCP over HTTP until SIGINT/SIGTERM (or ``stop``), then finish in-flight requests.

    ``forwarded_allow_ips``: the proxies whose forwarded headers are believed
    (None: config ``http.forwarded_allow_ips``; empty: none).

    Raises:
        InvalidInput: a non-loopback ``bind`` while no token exists; a bad proxy list.
        BrainkeepError: the address cannot be bound.
    """
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    limits = connection_limits(settings, forwarded_allow_ips=forwarded_allow_ips)
    tokens = TokenService(brain.store, brain.clock)
    clients = len(OAuthService(brain.store, brain.clock).list_clients()) if public_url else 0
    check_bind_allowed(bind, tokens, clients)
    sock = listen(bind, port, backlog=2048, suggestion="Pick another --port (or stop the "
                  "process using it), and check --bind.")
    sock.set_inheritable(True)
    actual_port = sock.getsockname()[1]
    host = f"[{bind.strip('[]')}]" if ":" in bind.strip("[]") else bind
    issuer = public_url.rstrip("/") if public_url else (
        f"http://{host}:{actual_port}" if is_loopback(bind) else None)
    oauth = None if issuer is None else OAuthOptions(issuer, allow_registration)
    app = build_http_app(brain, settings, surface=surface, bind=bind, oauth=oauth)
    print(
        f"brainkeep: MCP over HTTP at http://{host}:{actual_port}{MCP_PATH} "
        f"(surface={surface}; health at /health)",
        file=sys.stderr,
        flush=True,
    )
    if oauth is not None:
        print(f"brainkeep: OAuth issuer {oauth.issuer} (registration "
              f"{'on' if allow_registration else 'off'})", file=sys.stderr, flush=True)
    else:
        print("brainkeep: OAuth off: pass --public-url with the URL clients reach.",
              file=sys.stderr, flush=True)
    if limits.forwarded_allow_ips:
        print("brainkeep: X-Forwarded-For/-Proto believed from "
              f"{', '.join(limits.forwarded_allow_ips)} only", file=sys.stderr, flush=True)
    if not tokens.has_usable_tokens():
        print(
            "brainkeep: no usable token yet; every /mcp request will get 401. Create one with "
            "`brainkeep token create --name NAME --scopes read,write`.",
            file=sys.stderr,
            flush=True,
        )
    config: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,  # request lines are noise at this rate; errors still log
        "lifespan": "on",
        "timeout_graceful_shutdown": SHUTDOWN_GRACE_S,
        "limit_concurrency": MAX_CONCURRENT_CONNECTIONS,
        "server_header": False,
    }
    server = QuietExitServer(server_config(app, limits, **config), stop)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    print("brainkeep: HTTP server stopped", file=sys.stderr, flush=True)

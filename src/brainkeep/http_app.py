"""The HTTP server of `serve --http`: one neutral composition of the fronts that share it.

It mounts the MCP endpoint (``mcp/http.py``: ``/mcp`` behind the gate, and
the OAuth routes), the web console under ``/console`` (``console/``) and
``GET /health``, so neither front builds or imports the other; both share
the dispatcher and one per-address rate budget. ``brainkeep ui`` serves the
console alone (``console/server.py``).
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

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
from brainkeep.mcp.http import MCP_PATH, OAuthOptions, build_mcp_endpoint
from brainkeep.netaddr import is_loopback

log = logging.getLogger("brainkeep.http")

SHUTDOWN_GRACE_S = 10
# Connections beyond this get 503 from uvicorn instead of queueing without bound.
MAX_CONCURRENT_CONNECTIONS = 512
CONSOLE_PATH = "/console"


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


async def health(_request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok", "version": __version__})


def build_http_app(brain: Brain, settings: Settings, *, surface: str, bind: str,
                   oauth: OAuthOptions | None = None) -> PathSplit:
    """The ASGI app: ``/mcp`` behind the gate, the OAuth routes if on, ``/console``, ``/health``."""
    endpoint = build_mcp_endpoint(brain, settings, surface=surface, bind=bind, oauth=oauth)
    # The web console: token sign-in, the same dispatcher and read scopes, and
    # the gate's per-address limiter (one budget per address for /mcp and /console).
    console = build_console_app(
        brain, endpoint.dispatcher, base=CONSOLE_PATH,
        secure_cookies=bool(oauth is not None and oauth.issuer.startswith("https://")),
        ip_limiter=endpoint.ip_limiter)
    routes = [Route("/health", health, methods=["GET"]), *endpoint.routes,
              Mount(CONSOLE_PATH, app=console)]
    return PathSplit(endpoint.gate, Starlette(routes=routes, lifespan=endpoint.lifespan))


class PathSplit:
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

"""Build the console's ASGI app (``brainkeep ui`` and ``/console`` on ``serve --http``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from brainkeep.brain import Brain
from brainkeep.console import login
from brainkeep.console.env import ConsoleEnv
from brainkeep.console.local_auth import LocalAuth
from brainkeep.console.pages import PAGES
from brainkeep.console.session import SessionStore
from brainkeep.console.times import install as install_times
from brainkeep.core.context import Caller
from brainkeep.ops.dispatch import Dispatcher
from brainkeep.rate_limits import RateLimiter, retry_after_header

HERE = Path(__file__).parent
# No inline script or style anywhere, so the policy can forbid both; the SVG
# pictures are inline markup with presentation attributes, which CSP allows.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def templates() -> jinja2.Environment:
    """Autoescaping Jinja2 over the packaged templates (StrictUndefined: typos fail tests)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=jinja2.select_autoescape(("html", "svg")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


class Guard:
    """In front of every console request, before routing (cheapest refusal first).

    1. On ``brainkeep ui``, loopback Host names only (421): the local console
       is trusted like the CLI, so a page elsewhere must not reach it through
       DNS rebinding (a hostile name resolving to 127.0.0.1).
    2. On ``serve --http``, the per-address rate limit ``/mcp`` has (429 +
       ``Retry-After``): the same limiter, so one address has one budget.
    3. On ``brainkeep ui``, its URL token or the session it minted
       (``local_auth.py``; 401/403 otherwise).

    Every response, refusals included, carries the security headers.
    """

    def __init__(self, app: ASGIApp, *, local: LocalAuth | None,
                 ip_limiter: RateLimiter | None = None) -> None:
        self.app = app
        self.local = local
        self.ip_limiter = ip_limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, with_headers)
            return
        await self.app(scope, receive, with_headers)

    def _refusal(self, scope: Scope) -> Response | None:
        if self.local is not None and not _loopback_host(Headers(scope=scope).get("host", "")):
            return PlainTextResponse("Unknown host.", status_code=421)
        if self.ip_limiter is not None:
            client = scope.get("client")
            wait = self.ip_limiter.acquire(f"ip:{client[0] if client else 'unknown'}")
            if wait > 0:
                retry = retry_after_header(wait)
                return PlainTextResponse(
                    f"Too many requests from this address; retry in {retry}s.",
                    status_code=429, headers={"Retry-After": retry})
        return None if self.local is None else self.local.admit(scope)


def _loopback_host(host: str) -> bool:
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return name.lower() in LOCAL_HOSTS


def build_console_app(brain: Brain, dispatcher: Dispatcher, *, base: str = "",
                      local_caller: Caller | None = None, local_token: str | None = None,
                      secure_cookies: bool = False, ip_limiter: RateLimiter | None = None,
                      sessions: SessionStore | None = None) -> ASGIApp:
    """The console pages as one ASGI app.

    Args:
        brain: The open brain.
        dispatcher: The dispatcher the other transports use (same catalog, usage log).
        base: The URL prefix it is mounted at (``""`` or ``"/console"``).
        local_caller: The trusted caller of ``brainkeep ui``; None on
            ``serve --http`` (sign in with a token).
        local_token: The URL token of ``brainkeep ui`` (required with ``local_caller``).
        secure_cookies: Always mark the session cookie ``Secure`` (HTTPS public URL).
        ip_limiter: The per-address limiter (``serve --http`` passes the one ``/mcp`` uses).
        sessions: The session store (tests pass one to look inside).

    Raises:
        ValueError: ``local_caller`` without a long enough ``local_token``.
    """
    environment = templates()
    install_times(environment, brain.clock)  # `|when`: every page words times one way
    env = ConsoleEnv(brain=brain, dispatcher=dispatcher, templates=environment,
                     sessions=sessions if sessions is not None else SessionStore(),
                     base=base.rstrip("/"), local_caller=local_caller,
                     secure_cookies=secure_cookies)
    env = replace(env, nav=tuple(p.nav for p in PAGES if p.nav is not None))
    # No local console without its key (LocalAuth refuses a short or missing token).
    local = None if local_caller is None else LocalAuth(env, local_token or "")
    routes: list[BaseRoute] = [Mount("/static", StaticFiles(directory=HERE / "static"),
                                     name="static")]
    routes += login.routes(env)
    for registered in PAGES:
        routes += registered.routes(env)
    return Guard(Starlette(routes=routes), local=local, ip_limiter=ip_limiter)

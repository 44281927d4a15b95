"""Build the console's ASGI app (``brainkeep ui`` and ``/console`` on ``serve --http``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from brainkeep.brain import Brain
from brainkeep.console import login
from brainkeep.console.env import ConsoleEnv
from brainkeep.console.pages import PAGES
from brainkeep.console.session import SessionStore
from brainkeep.core.context import Caller
from brainkeep.ops.dispatch import Dispatcher

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
    """Security headers on every response; on ``brainkeep ui``, loopback Host names only.

    The local console is trusted like the CLI, so a page elsewhere must not
    reach it through DNS rebinding (a hostile name resolving to 127.0.0.1):
    any other Host header is refused before routing.
    """

    def __init__(self, app: ASGIApp, *, local: bool) -> None:
        self.app = app
        self.local = local

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.local and not _loopback_host(Headers(scope=scope).get("host", "")):
            await PlainTextResponse("Unknown host.", status_code=421)(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


def _loopback_host(host: str) -> bool:
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return name.lower() in LOCAL_HOSTS


def build_console_app(brain: Brain, dispatcher: Dispatcher, *, base: str = "",
                      local_caller: Caller | None = None,
                      secure_cookies: bool = False) -> ASGIApp:
    """The console pages as one ASGI app.

    Args:
        brain: The open brain.
        dispatcher: The dispatcher the other transports use (same catalog, usage log).
        base: The URL prefix it is mounted at (``""`` or ``"/console"``).
        local_caller: The trusted caller of ``brainkeep ui``; None on
            ``serve --http`` (sign in with a token).
        secure_cookies: Always mark the session cookie ``Secure`` (HTTPS public URL).
    """
    env = ConsoleEnv(brain=brain, dispatcher=dispatcher, templates=templates(),
                     sessions=SessionStore(), base=base.rstrip("/"), local_caller=local_caller,
                     secure_cookies=secure_cookies)
    env = replace(env, nav=tuple(p.nav for p in PAGES if p.nav is not None))
    routes: list[BaseRoute] = [Mount("/static", StaticFiles(directory=HERE / "static"),
                                     name="static")]
    routes += login.routes(env)
    for registered in PAGES:
        routes += registered.routes(env)
    return Guard(Starlette(routes=routes), local=local_caller is not None)

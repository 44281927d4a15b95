"""Sign in and out of the remote console with an API token (``/console/login``).

The browser pastes a token secret once; the server verifies it with the same
``TokenService.verify`` the MCP gate uses and keeps only the token id in a
new server-side session (a fresh id, so a planted cookie gains nothing). Any
live token may sign in: what each page shows is what that token's scope and
org allow, exactly as through MCP. ``brainkeep ui`` needs no sign-in.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.console.env import ConsoleEnv
from brainkeep.console.session import COOKIE
from brainkeep.console.web import (
    csrf_ok,
    redirect,
    refused,
    render,
    session_of,
    set_session_cookie,
)
from brainkeep.core.tokens import TokenService

_REASONS = {
    "missing": "Paste a token secret.",
    "invalid": "That is not a valid token secret.",
    "expired": "That token has expired.",
    "revoked": "That token has been revoked.",
}


def _next(env: ConsoleEnv, raw: object) -> str:
    """Only a console-relative path (no open redirect to another site)."""
    text = raw if isinstance(raw, str) else "/"
    return text if text.startswith("/") and not text.startswith("//") else "/"


def routes(env: ConsoleEnv) -> list[BaseRoute]:
    tokens = TokenService(env.brain.store, env.brain.clock)

    async def login_form(request: Request) -> Response:
        if env.local:
            return redirect(env, "/")
        session, fresh = session_of(env, request)
        response = render(env, request, None, "login.html", title="Sign in", error=None,
                          next=_next(env, request.query_params.get("next")),
                          login_csrf=session.csrf)
        if fresh:
            set_session_cookie(env, request, response, session)
        return response

    async def login_submit(request: Request) -> Response:
        if env.local:
            return redirect(env, "/")
        form = await request.form()
        old = env.sessions.get(request.cookies.get(COOKIE))
        if old is None or not csrf_ok(old, form):
            return refused(env, request)
        secret = form.get("token")
        check = await run_in_threadpool(tokens.verify, secret if isinstance(secret, str)
                                        else None)
        target = _next(env, form.get("next"))
        if check.token is None:
            return render(env, request, None, "login.html", status=401, title="Sign in",
                          error=_REASONS.get(check.reason or "", _REASONS["invalid"]),
                          next=target, login_csrf=old.csrf)
        env.sessions.drop(old.id)
        session = env.sessions.new(check.token.id)
        response = redirect(env, target)
        set_session_cookie(env, request, response, session)
        return response

    async def logout(request: Request) -> Response:
        form = await request.form()
        session = env.sessions.get(request.cookies.get(COOKIE))
        if session is None or not csrf_ok(session, form):
            return refused(env, request)
        env.sessions.drop(session.id)
        response = redirect(env, "/login")
        response.delete_cookie(COOKIE, path=env.base or "/")
        return response

    return [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login_submit, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
    ]

"""Sign in and out of the remote console with an API token (``/console/login``).

The browser pastes a token secret once; the server verifies it with the same
``TokenService.verify`` the MCP gate uses and keeps only the token id in a
new server-side session (a fresh id, so a planted cookie gains nothing). Any
live token may sign in: what each page shows is what that token's scope and
org allow, exactly as through MCP. Until then nothing is stored: the form's
CSRF token is the HMAC of a nonce in the browser's own cookie
(``session.LoginTokens``). ``brainkeep ui`` signs in with its URL token
instead (``console/local_auth.py``).
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from brainkeep.console.env import ConsoleEnv
from brainkeep.console.session import COOKIE, LOGIN_COOKIE
from brainkeep.console.web import (
    CSRF_FIELD,
    clear_cookie,
    csrf_ok,
    redirect,
    refused,
    render,
    set_login_cookie,
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
        # Reuse a live nonce (several tabs share one); else a new one: no state kept here.
        fresh = None
        form_token = env.login_tokens.form_token(request.cookies.get(LOGIN_COOKIE))
        if form_token is None:
            fresh = env.login_tokens.issue()
            form_token = env.login_tokens.form_token(fresh)
        response = render(env, request, None, "login.html", title="Sign in", error=None,
                          next=_next(env, request.query_params.get("next")),
                          login_csrf=form_token)
        if fresh is not None:
            set_login_cookie(env, request, response, fresh)
        return response

    async def login_submit(request: Request) -> Response:
        if env.local:
            return redirect(env, "/")
        form = await request.form()
        nonce = request.cookies.get(LOGIN_COOKIE)
        if not env.login_tokens.check(nonce, form.get(CSRF_FIELD)):
            return refused(env, request)
        secret = form.get("token")
        check = await run_in_threadpool(tokens.verify, secret if isinstance(secret, str)
                                        else None)
        target = _next(env, form.get("next"))
        if check.token is None:
            return render(env, request, None, "login.html", status=401, title="Sign in",
                          error=_REASONS.get(check.reason or "", _REASONS["invalid"]),
                          next=target, login_csrf=env.login_tokens.form_token(nonce) or "")
        env.sessions.drop(request.cookies.get(COOKIE))  # signing in again: the old one ends
        session = env.sessions.new(check.token.id)
        response = redirect(env, target)
        set_session_cookie(env, request, response, session)
        clear_cookie(env, request, response, LOGIN_COOKIE)
        return response

    async def logout(request: Request) -> Response:
        form = await request.form()
        session = env.sessions.get(request.cookies.get(COOKIE))
        if session is None or not csrf_ok(session, form):
            return refused(env, request)
        env.sessions.drop(session.id)
        response = redirect(env, "/login")
        clear_cookie(env, request, response, COOKIE)
        return response

    return [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login_submit, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
    ]

"""Request plumbing shared by every page: the viewer, CSRF, rendering, errors.

``page(env, handler, needs=...)`` wraps a GET handler and ``action(env,
handler, needs=...)`` a writing POST handler. Both resolve the viewer first
(redirecting an anonymous remote browser to the sign-in page; an anonymous
request stores nothing: sessions exist only after sign-in), check the
scope the page needs, run the synchronous handler off the event loop (the
store is synchronous), and turn a ``BrainkeepError`` into an error page in
the same words the other transports use. ``action`` also verifies the form's
CSRF token against the session before the handler runs.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from brainkeep.console.env import ConsoleEnv
from brainkeep.console.session import ABSOLUTE_S, COOKIE, LOGIN_COOKIE, LOGIN_TTL_S, Session
from brainkeep.core.context import Caller
from brainkeep.core.scope import ReadScope
from brainkeep.core.token_callers import caller_for_token
from brainkeep.errors import BrainkeepError, PermissionDenied
from brainkeep.ops.dispatch import opaque_internal, scope_allows

CSRF_FIELD = "csrf"
# What the local console answers without its key (no template: nothing else may run).
LOCAL_SIGN_IN = (
    "<!doctype html><title>Open the URL brainkeep ui printed</title>"
    "<h1>Open the URL <code>brainkeep ui</code> printed</h1>"
    "<p>Every account on this machine can reach this port, so the console needs the key in "
    "the address <code>brainkeep ui</code> printed when it started "
    "(<code>http://127.0.0.1:PORT/?token=&hellip;</code>). Open that URL in this browser, "
    "or run <code>brainkeep ui</code> again for a new one.</p>")
_STATUS = {"invalid_params": 400, "provenance_required": 400, "not_found": 404,
           "scope_denied": 403, "unavailable": 503}


@dataclass(frozen=True)
class Viewer:
    """Who is looking: a caller (its read scope decides every row) and a session.

    Attributes:
        caller: The local trusted caller (``brainkeep ui``) or the signed-in
            token's caller (remote: ``caller.read_scope`` is untrusted, in the
            token's org, reading as its agent).
        session: The browser's session (``session.csrf`` goes into forms).
    """

    caller: Caller
    session: Session

    @property
    def scope(self) -> ReadScope:
        return self.caller.read_scope

    @property
    def csrf(self) -> str:
        return self.session.csrf

    @property
    def signed_in_as(self) -> str | None:
        """The token name of a remote viewer (None for the local console)."""
        return self.caller.token_name

    def may(self, needed: str) -> bool:
        """Whether the viewer holds ``needed`` (``read``, ``write``, ``admin``)."""
        return scope_allows(needed, self.caller)


Handler = Callable[[Request, Viewer], Response]
ActionHandler = Callable[[Request, Viewer, FormData], Response]


def session_of(env: ConsoleEnv, request: Request) -> Session | None:
    """The request's signed-in session, or None (nothing is created for a stranger)."""
    return env.sessions.get(request.cookies.get(COOKIE))


def caller_of(env: ConsoleEnv, session: Session) -> Caller | None:
    """The session's caller: local trusted, or its token's caller while the token is live.

    The token row is read on every request, so a revoked or expired token
    ends its console sessions at once.
    """
    if env.local_caller is not None:
        return env.local_caller
    if session.token_id is None:
        return None
    token = env.brain.store.get_token(session.token_id)
    if token is None or token.status(env.brain.clock.now_ts()) != "active":
        return None
    return replace(caller_for_token(token), transport="console")


def set_session_cookie(env: ConsoleEnv, request: Request, response: Response,
                       session: Session) -> None:
    """HttpOnly, SameSite=Strict, Secure behind HTTPS, scoped to the console's path."""
    response.set_cookie(
        COOKIE, session.id, max_age=ABSOLUTE_S, path=env.base or "/", httponly=True,
        samesite="strict", secure=_secure(env, request),
    )


def set_login_cookie(env: ConsoleEnv, request: Request, response: Response,
                     value: str) -> None:
    """The sign-in form's nonce cookie, with the session cookie's flags."""
    response.set_cookie(
        LOGIN_COOKIE, value, max_age=LOGIN_TTL_S, path=env.base or "/", httponly=True,
        samesite="strict", secure=_secure(env, request),
    )


def clear_cookie(env: ConsoleEnv, request: Request, response: Response, name: str) -> None:
    """Expire one of the console's cookies (same path and flags as when it was set)."""
    response.delete_cookie(name, path=env.base or "/", httponly=True, samesite="strict",
                           secure=_secure(env, request))


def _secure(env: ConsoleEnv, request: Request) -> bool:
    return env.secure_cookies or request.url.scheme == "https"


def render(env: ConsoleEnv, request: Request, viewer: Viewer | None, template: str,
           *, status: int = 200, **context: Any) -> HTMLResponse:
    """A template with the common context: ``base``, ``href``, ``nav``, ``viewer``, ``csrf``."""
    nav = [item for item in env.nav if viewer is not None and viewer.may(item.needs)]
    html = env.templates.get_template(template).render(
        base=env.base, href=env.href, nav=nav, viewer=viewer, local=env.local,
        csrf=viewer.csrf if viewer else "", csrf_field=CSRF_FIELD, path=_rel(env, request),
        **context,
    )
    return HTMLResponse(html, status_code=status)


def _rel(env: ConsoleEnv, request: Request) -> str:
    path = request.url.path
    return path[len(env.base):] or "/" if env.base and path.startswith(env.base) else path


def error_page(env: ConsoleEnv, request: Request, viewer: Viewer | None,
               exc: BrainkeepError) -> HTMLResponse:
    return render(env, request, viewer, "error.html", status=_STATUS.get(exc.code, 500),
                  title="Error", error=exc)


async def _run(env: ConsoleEnv, request: Request, needs: str,
               call: Callable[[Viewer], Response]) -> Response:
    session = session_of(env, request)
    caller = None if session is None else await run_in_threadpool(caller_of, env, session)
    if caller is None or session is None:
        if env.local:  # the local gate lets no session-less request this far; still refuse
            return HTMLResponse(LOCAL_SIGN_IN, status_code=401)
        return RedirectResponse(env.href("/login", next=_rel(env, request)), 303)
    viewer = Viewer(caller, session)
    if not viewer.may(needs):
        denied = PermissionDenied(
            f"This page needs the `{needs}` scope, which this token does not hold.",
            suggestion=f"Sign in with a token that has `{needs}` "
            f"(`brainkeep token create --name NAME --scopes {needs}`).")
        return error_page(env, request, viewer, denied)
    return await run_in_threadpool(_guarded, env, request, viewer, call)


def _guarded(env: ConsoleEnv, request: Request, viewer: Viewer,
             call: Callable[[Viewer], Response]) -> Response:
    try:
        return call(viewer)
    except BrainkeepError as exc:
        shown = opaque_internal(request.url.path, exc) if exc.code == "internal" else exc
        return error_page(env, request, viewer, shown)
    except Exception as exc:  # the edge: convert, never swallow (the log has the incident)
        return error_page(env, request, viewer, opaque_internal(request.url.path, exc))


def page(env: ConsoleEnv, handler: Handler, *, needs: str = "read") -> Callable[..., Any]:
    """A GET endpoint: viewer resolved, scope ``needs`` checked, ``handler`` run in a thread."""

    async def endpoint(request: Request) -> Response:
        return await _run(env, request, needs, lambda viewer: handler(request, viewer))

    return endpoint


def csrf_ok(session: Session, form: FormData) -> bool:
    """The form's token equals the session's (constant-time)."""
    sent = form.get(CSRF_FIELD)
    # Bytes, not str: compare_digest refuses non-ASCII text (a 500 instead of a 403).
    return isinstance(sent, str) and hmac.compare_digest(sent.encode(), session.csrf.encode())


def refused(env: ConsoleEnv, request: Request) -> Response:
    """A writing POST without a valid CSRF token: nothing runs."""
    return HTMLResponse(
        "<!doctype html><title>Refused</title><h1>Refused: missing or wrong form token</h1>"
        f'<p>Reload the page and submit the form again. <a href="{env.href("/")}">Home</a></p>',
        status_code=403)


def action(env: ConsoleEnv, handler: ActionHandler, *, needs: str = "write"
           ) -> Callable[..., Any]:
    """A writing POST endpoint: CSRF verified first, then like ``page``."""

    async def endpoint(request: Request) -> Response:
        form = await request.form()
        session = env.sessions.get(request.cookies.get(COOKIE))
        if session is None or not csrf_ok(session, form):
            return refused(env, request)
        return await _run(env, request, needs, lambda viewer: handler(request, viewer, form))

    return endpoint


def redirect(env: ConsoleEnv, path: str, **query: Any) -> Response:
    """303 after a POST (Post/Redirect/Get), to a console path."""
    return RedirectResponse(env.href(path, **query), status_code=303)

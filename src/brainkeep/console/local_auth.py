"""The key of `brainkeep ui`: a URL token, exchanged once per browser for a session cookie.

127.0.0.1 is reachable by every account on the machine, and the local
console is trusted like the CLI, so reaching the port must not be enough:
another user who cannot read the 0700 brain folder could otherwise read
private memories and mint an admin token. ``brainkeep ui`` makes a random
token (256 bits) at start and prints (and opens) ``http://127.0.0.1:PORT/?token=…``.

* A request carrying ``?token=`` that matches (constant-time) gets a new
  session (``SessionStore``) in an ``HttpOnly``, ``SameSite=Strict`` cookie
  and a tiny page that moves on to the same URL without the token, so the
  key leaves the address bar (and no ``Referer`` carries it). Not a 303: the
  URL often arrives from another site's page or the ``file://`` page ``ui``
  opens, and a browser does not send a Strict cookie on a redirect of such a
  navigation; the page's own refresh is same-site, so the cookie goes along.
* A request with a live session cookie passes.
* Anything else gets 401 (no key) or 403 (a wrong key) and a short page
  saying to open the URL ``brainkeep ui`` printed; nothing is routed.

The token stays valid for the life of the process, but only to mint a
cookie: a second browser (or this one after a restart of the browser) opens
the same printed URL. It is never logged (the console logs no request lines).
"""

from __future__ import annotations

import hmac
import html
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import Scope

from brainkeep.console.env import ConsoleEnv
from brainkeep.console.session import COOKIE
from brainkeep.console.web import LOCAL_SIGN_IN, set_session_cookie

TOKEN_PARAM = "token"
WRONG_TOKEN = (
    "<!doctype html><title>Wrong console key</title><h1>Wrong console key</h1>"
    "<p>This is not the key of the running <code>brainkeep ui</code> (a new one is made "
    "each time it starts). Open the URL it printed, or run <code>brainkeep ui</code> again.</p>")


class LocalAuth:
    """Admits a request to the local console, or answers it (see module doc)."""

    def __init__(self, env: ConsoleEnv, token: str) -> None:
        if len(token) < 32:
            raise ValueError("the console token must be long and random")
        self.env = env
        self._token = token.encode()

    def admit(self, scope: Scope) -> Response | None:
        """None: the request may proceed; else the answer to send instead."""
        request = Request(scope)
        session = self.env.sessions.get(request.cookies.get(COOKIE))
        sent = request.query_params.get(TOKEN_PARAM)
        if sent is None:
            return None if session is not None else HTMLResponse(LOCAL_SIGN_IN, 401)
        if not hmac.compare_digest(sent.encode(), self._token):
            return HTMLResponse(WRONG_TOKEN, 403)
        target = html.escape(_without_token(request), quote=True)
        response = HTMLResponse(
            '<!doctype html><meta name="referrer" content="no-referrer">'
            f'<meta http-equiv="refresh" content="0;url={target}">'
            f'<title>brainkeep console</title><p><a href="{target}">Open the console</a></p>')
        if session is None:  # a browser that already holds a session keeps it
            set_session_cookie(self.env, request, response, self.env.sessions.new(None))
        return response


def _without_token(request: Request) -> str:
    """The request's own path and query minus the token (never another site's URL)."""
    path = request.url.path
    if not path.startswith("/") or path.startswith("//"):
        path = "/"
    rest = [(k, v) for k, v in request.query_params.multi_items() if k != TOKEN_PARAM]
    return f"{path}?{urlencode(rest)}" if rest else path

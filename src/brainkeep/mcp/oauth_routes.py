"""The OAuth endpoints of `serve --http`: the SDK's routes plus what it lacks.

From the SDK (``mcp.server.auth.routes``): authorization-server metadata
(RFC 8414), protected-resource metadata (RFC 9728), ``/authorize``,
``/token``, ``/revoke`` and, with ``--allow-registration``, ``/register``
(RFC 7591). Added here, as thin HTTP translation over core/oauth:

- the consent page (``GET``/``POST /oauth/consent``): who asks, which scopes,
  approve/deny, after the operator logs in with an admin bearer token or the
  password from `brainkeep admin set-password`;
- client authentication against hashed secrets in front of ``/token`` and
  ``/revoke`` (see mcp/oauth_provider.py), and the ``client_credentials``
  grant, which the SDK's token handler does not implement.
"""

from __future__ import annotations

import base64
import html
import json
from typing import Any
from urllib.parse import parse_qs, unquote

from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.routes import (
    REVOCATION_PATH,
    TOKEN_PATH,
    build_metadata,
    cors_middleware,
    create_auth_routes,
    create_protected_resource_routes,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from brainkeep.core.oauth.password import admin_password_ok
from brainkeep.core.oauth.service import OAuthService
from brainkeep.core.tokens import SCOPES, TokenService
from brainkeep.errors import InvalidInput
from brainkeep.mcp.gate import read_body, replay_body, send_json
from brainkeep.mcp.limits import RateLimiter, retry_after_header
from brainkeep.mcp.oauth_provider import CONSENT_PATH, BrainkeepOAuthProvider

MAX_FORM_BYTES = 64 * 1024
_NO_STORE = [(b"cache-control", b"no-store"), (b"pragma", b"no-cache")]
_SCOPE_TEXT = {"read": "read memories and pages", "write": "write and forget memories and pages",
               "admin": "everything, including administration"}


# Approve attempts (right or wrong) per client address and minute on the consent form.
LOGINS_PER_MINUTE = 10


def _oauth_error(error: str, description: str) -> bytes:
    return json.dumps({"error": error, "error_description": description}).encode()


def _client_credentials(form: dict[str, str], headers: dict[str, str]
                        ) -> tuple[str | None, str | None]:
    """(client_id, secret) from HTTP Basic or the form (RFC 6749 §2.3.1)."""
    auth = headers.get("authorization", "")
    if auth.lower().startswith("basic "):
        try:
            raw = base64.b64decode(auth[6:]).decode("utf-8")
        except ValueError:
            return None, None
        cid, _, secret = raw.partition(":")
        return unquote(cid), unquote(secret)
    return form.get("client_id"), form.get("client_secret")


class ClientAuth:
    """Authenticate the client against its hashed secret, then hand over to the SDK
    (or answer ``client_credentials`` here)."""

    def __init__(self, app: ASGIApp, service: OAuthService, resource: str, *,
                 token_endpoint: bool) -> None:
        self.app = app
        self.service = service
        self.resource = resource
        self.token_endpoint = token_endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = await read_body(receive, MAX_FORM_BYTES)
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", ())}
        client_id, secret = _client_credentials(form, headers)
        client = self.service.get_client(client_id or "")
        if client is None or (client.secret_hash is not None
                              and not self.service.client_secret_ok(client, secret)):
            # Never say which half was wrong, and never log what was sent.
            await send_json(send, 401, _oauth_error("invalid_client", "client authentication "
                            "failed"), _NO_STORE)
            return
        if self.token_endpoint and form.get("grant_type") == "client_credentials":
            await self._client_credentials(send, client, form)
            return
        if "client_id" not in form:  # Basic auth: the SDK reads client_id from the form
            body = body + (b"&" if body else b"") + f"client_id={client.client_id}".encode()
        await self.app(scope, replay_body(body, receive), send)

    async def _client_credentials(self, send: Send, client: Any, form: dict[str, str]) -> None:
        if "client_credentials" not in client.grant_types or client.secret_hash is None:
            await send_json(send, 400, _oauth_error("unauthorized_client", "this client may "
                            "not use client_credentials"), _NO_STORE)
            return
        resource = form.get("resource") or self.resource
        if resource.rstrip("/") != self.resource.rstrip("/"):
            await send_json(send, 400, _oauth_error("invalid_target", "unknown resource"),
                            _NO_STORE)
            return
        try:
            scopes = self.service.allowed_scopes(client, (form.get("scope") or "").split())
        except InvalidInput as exc:
            await send_json(send, 400, _oauth_error("invalid_scope", exc.message), _NO_STORE)
            return
        issued = self.service.client_credentials(client, scopes, self.resource)
        body = {"access_token": issued.access_token, "token_type": "Bearer",
                "expires_in": issued.expires_in, "scope": " ".join(issued.scopes)}
        await send_json(send, 200, json.dumps(body).encode(), _NO_STORE)


class Consent:
    """The consent page: the operator logs in and approves or denies one request."""

    def __init__(self, provider: BrainkeepOAuthProvider, tokens: TokenService,
                 logins: RateLimiter | None = None) -> None:
        self.provider = provider
        self.tokens = tokens
        # Sign-in attempts per client address: the operator password must not
        # be guessable at network speed.
        self.logins = logins or RateLimiter(LOGINS_PER_MINUTE)

    def _operator_ok(self, login: str) -> bool:
        """An admin bearer token, or the operator password (hashed in the brain)."""
        check = self.tokens.verify(login) if login.startswith("bk_") else None
        if check is not None:
            return check.token is not None and "admin" in check.token.scopes
        return admin_password_ok(self.tokens.store, login)

    async def get(self, request: Request) -> Response:
        ticket = request.query_params.get("request", "")
        return self._page(ticket, None)

    async def post(self, request: Request) -> Response:
        form = await request.form()
        ticket = str(form.get("request", ""))
        if self.provider.pending(ticket) is None:
            return self._page(ticket, None)
        if form.get("decision") == "approve":
            where = request.client.host if request.client else "unknown"
            wait = self.logins.acquire(f"login:{where}")
            if wait:
                return HTMLResponse(
                    "<!doctype html><title>brainkeep</title><p>Too many sign-in attempts. "
                    "Wait a minute and try again.</p>", status_code=429,
                    headers={"Retry-After": retry_after_header(wait)})
            if not self._operator_ok(str(form.get("login", ""))):
                return self._page(ticket, "Wrong admin token or password.", status=403)
        target = self.provider.answer(ticket, form.get("decision") == "approve")
        if target is None:
            return self._page(ticket, None)
        return RedirectResponse(target, status_code=302, headers={"Cache-Control": "no-store"})

    def _page(self, ticket: str, error: str | None, status: int = 200) -> Response:
        found = self.provider.pending(ticket)
        if found is None:
            return HTMLResponse("<!doctype html><title>brainkeep</title><p>This authorization "
                                "request is unknown or expired. Start again from your "
                                "client.</p>", status_code=400)
        esc = html.escape
        scopes = "".join(f"<li><b>{esc(s)}</b>: {esc(_SCOPE_TEXT.get(s, s))}</li>"
                         for s in found.scopes)
        notice = f'<p role="alert" style="color:#b00">{esc(error)}</p>' if error else ""
        body = f"""<!doctype html><html><head><meta charset="utf-8">
<title>Authorize {esc(found.client.name)} - brainkeep</title>
<meta name="viewport" content="width=device-width"></head>
<body style="font-family:sans-serif;max-width:32em;margin:2em auto">
<h1>Connect {esc(found.client.name)} to this brain?</h1>
<p>Client <code>{esc(found.client.client_id)}</code> asks for:</p><ul>{scopes}</ul>
<p>It will act as org <code>{esc(found.client.org_id or '-')}</code>, agent
<code>{esc(found.client.agent_id or '-')}</code>, and return to
<code>{esc(found.redirect_uri)}</code>.</p>{notice}
<form method="post" action="{CONSENT_PATH}">
<input type="hidden" name="request" value="{esc(ticket)}">
<label>Admin token or operator password
<input type="password" name="login" autocomplete="current-password"></label>
<p><button name="decision" value="approve">Approve</button>
<button name="decision" value="deny">Deny</button></p></form></body></html>"""
        headers = {"Cache-Control": "no-store", "X-Frame-Options": "DENY",
                   "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
                   "form-action 'self'"}
        return HTMLResponse(body, status_code=status, headers=headers)


def oauth_routes(provider: BrainkeepOAuthProvider, service: OAuthService,
                 tokens: TokenService, *, issuer: str, resource: str,
                 allow_registration: bool) -> list[Route]:
    """Every OAuth route of the HTTP server (see module doc)."""
    registration = ClientRegistrationOptions(enabled=allow_registration,
                                             valid_scopes=list(SCOPES),
                                             default_scopes=["read", "write"])
    revocation = RevocationOptions(enabled=True)
    # Through the SDK's settings model: it keeps a path-less issuer without a
    # trailing slash, since clients compare issuers as exact strings (RFC 8414).
    # validate_token_resource=False: these settings only normalise the URLs;
    # the SDK's bearer middleware is not used, and the gate checks every
    # access token's resource (its audience) itself (mcp/gate.py OAuthCheck,
    # tests/http/test_oauth_grants.py::test_token_for_another_resource_is_refused).
    urls = AuthSettings(issuer_url=issuer, resource_server_url=resource,  # type: ignore[arg-type]
                        validate_token_resource=False)
    issuer_url = urls.issuer_url
    resource_url = urls.resource_server_url or issuer_url
    routes: list[Route] = []
    for route in create_auth_routes(provider, issuer_url,
                                    client_registration_options=registration,
                                    revocation_options=revocation):
        if route.path in (TOKEN_PATH, REVOCATION_PATH):
            wrapped = ClientAuth(route.app, service, resource,
                                 token_endpoint=route.path == TOKEN_PATH)
            route = Route(route.path, endpoint=wrapped, methods=["POST", "OPTIONS"])
        elif route.path == "/.well-known/oauth-authorization-server":
            metadata = build_metadata(issuer_url, None, registration, revocation)
            metadata.grant_types_supported = [*(metadata.grant_types_supported or []),
                                              "client_credentials"]
            metadata.token_endpoint_auth_methods_supported = [
                "client_secret_post", "client_secret_basic", "none"]
            route = Route(route.path, endpoint=cors_middleware(
                MetadataHandler(metadata).handle, ["GET", "OPTIONS"]), methods=["GET", "OPTIONS"])
        routes.append(route)
    routes += create_protected_resource_routes(resource_url, [issuer_url],
                                               scopes_supported=list(SCOPES),
                                               resource_name="brainkeep")
    consent = Consent(provider, tokens)
    routes += [Route(CONSENT_PATH, consent.get, methods=["GET"]),
               Route(CONSENT_PATH, consent.post, methods=["POST"])]
    return routes

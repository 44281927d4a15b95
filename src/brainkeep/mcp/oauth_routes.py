"""The OAuth endpoints of `serve --http`: the SDK's routes plus what it lacks.

From the SDK (``mcp.server.auth.routes``): authorization-server metadata
(RFC 8414), protected-resource metadata (RFC 9728), ``/authorize``,
``/token``, ``/revoke`` and, with ``--allow-registration``, ``/register``
(RFC 7591). Added here, as thin HTTP translation over core/oauth:

- the consent page (``GET``/``POST /oauth/consent``): who asks, which scopes,
  approve/deny, after the operator logs in with an admin bearer token or the
  password from `brainkeep admin set-password`; an org-bound admin token
  approves only its own org's clients (core/tenant_fence.py);
- client authentication against hashed secrets in front of ``/token`` and
  ``/revoke`` (see mcp/oauth_provider.py), and the ``client_credentials``
  grant, which the SDK's token handler does not implement.
"""

from __future__ import annotations

import base64
import html
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlencode

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
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from brainkeep.core.oauth.password import admin_password_ok
from brainkeep.core.oauth.service import OAuthService
from brainkeep.core.ports.composites import MetaStore
from brainkeep.core.tenant_fence import operator_covers
from brainkeep.core.tokens import SCOPES, TokenService
from brainkeep.errors import InvalidInput
from brainkeep.mcp.gate import BodyTooLarge, read_body, replay_body, send_json
from brainkeep.mcp.oauth_provider import (
    CONSENT_PATH,
    BrainkeepOAuthProvider,
    PresentedCredentials,
    presented,
)
from brainkeep.rate_limits import RateLimiter, retry_after_header

MAX_FORM_BYTES = 64 * 1024
_NO_STORE = [(b"cache-control", b"no-store"), (b"pragma", b"no-cache")]
_SCOPE_TEXT = {"read": "read memories and pages", "write": "write and forget memories and pages",
               "admin": "everything, including administration"}


# Approve attempts (right or wrong) per client address and minute on the consent form.
LOGINS_PER_MINUTE = 10


def _oauth_error(error: str, description: str) -> bytes:
    return json.dumps({"error": error, "error_description": description}).encode()


@dataclass(frozen=True)
class _Refusal:
    """An OAuth error answer (RFC 6749 §5.2 shape)."""

    status: int
    error: str
    description: str


_BAD_CLIENT = _Refusal(401, "invalid_client", "client authentication failed")


def _presented(form: FormData, authorization: str
               ) -> tuple[str, str | None, str] | _Refusal:
    """(client_id, secret, method) from HTTP Basic or the form (RFC 6749 §2.3.1).

    With Basic, a ``client_id`` in the form must be the same client and a
    ``client_secret`` there the same secret: otherwise the client we check and
    the client the SDK acts for (it reads the form) could differ.
    """
    form_id, form_secret = form.get("client_id"), form.get("client_secret")
    if not authorization.lower().startswith("basic "):
        if not isinstance(form_id, str) or not form_id:
            return _BAD_CLIENT
        return form_id, form_secret if isinstance(form_secret, str) else None, \
            "client_secret_post"
    try:
        raw = base64.b64decode(authorization[6:], validate=True).decode("utf-8")
    except ValueError:
        return _BAD_CLIENT
    if ":" not in raw:
        return _BAD_CLIENT
    cid, _, secret = raw.partition(":")
    cid, secret = unquote(cid), unquote(secret)
    if form_id is not None and form_id != cid:
        return _Refusal(401, "invalid_client", "client_id differs from the Basic credentials")
    if form_secret is not None and form_secret != secret:
        return _Refusal(400, "invalid_request", "two different client secrets")
    return cid, secret, "client_secret_basic"


def _forwarded_scope(scope: Scope, body: bytes, basic: bool) -> Scope:
    """The scope the SDK handler sees: the rebuilt body's length, and ``Basic`` spelt as
    the SDK expects it (the scheme is case-insensitive, RFC 7617; its check is not)."""
    headers = []
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            value = str(len(body)).encode()
        elif name.lower() == b"authorization" and basic:
            value = b"Basic " + value[6:]
        headers.append((name, value))
    return {**scope, "headers": headers}


class ClientAuth:
    """Authenticate the client against its hashed secret, then hand over to the SDK
    (or answer ``client_credentials`` here).

    The form is parsed once, by the parser the SDK uses, and re-encoded for it,
    so both read the same parameters; a repeated parameter (RFC 6749 §3.2) is
    refused rather than resolved, since two parsers may pick different copies.
    """

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
        try:
            body = await read_body(receive, MAX_FORM_BYTES)
        except BodyTooLarge:
            await send_json(send, 413, _oauth_error(
                "invalid_request", f"the request body is over {MAX_FORM_BYTES} bytes"), _NO_STORE)
            return
        request = Request(scope, replay_body(body, receive))
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/x-www-form-urlencoded":
            await self._refuse(send, _Refusal(400, "invalid_request", "send the parameters as "
                                              "application/x-www-form-urlencoded"))
            return
        try:
            form = await request.form()
        except (HTTPException, MultiPartException):
            await self._refuse(send, _Refusal(400, "invalid_request", "malformed form"))
            return
        items = [(k, v) for k, v in form.multi_items() if isinstance(v, str)]
        repeated = sorted(k for k, n in Counter(k for k, _ in items).items() if n > 1)
        if repeated:
            await self._refuse(send, _Refusal(400, "invalid_request",
                                              f"parameter given more than once: {repeated[0]}"))
            return
        found = _presented(form, request.headers.get("authorization", ""))
        if isinstance(found, _Refusal):
            await self._refuse(send, found)
            return
        client_id, secret, method = found
        client = self.service.get_client(client_id)
        if client is None or (client.secret_hash is not None
                              and not self.service.client_secret_ok(client, secret)):
            # Never say which half was wrong, and never log what was sent.
            await self._refuse(send, _BAD_CLIENT)
            return
        if self.token_endpoint and form.get("grant_type") == "client_credentials":
            await self._client_credentials(send, client, dict(items))
            return
        if "client_id" not in form:  # Basic auth: the SDK reads client_id from the form
            items.append(("client_id", client.client_id))
        if not self.token_endpoint and "client_secret" not in form:
            # The SDK's revocation form requires the field even where the secret is
            # not in the form (public clients, Basic); its authenticator ignores it then.
            items.append(("client_secret", ""))
        forwarded = urlencode(items).encode()
        proof = PresentedCredentials(
            client.client_id, secret if client.secret_hash is not None else None,
            method if client.secret_hash is not None else "none")
        with presented(proof):
            await self.app(_forwarded_scope(scope, forwarded, method == "client_secret_basic"),
                           replay_body(forwarded, receive), send)

    async def _refuse(self, send: Send, refusal: _Refusal) -> None:
        await send_json(send, refusal.status, _oauth_error(refusal.error, refusal.description),
                        _NO_STORE)

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


@dataclass(frozen=True)
class _Operator:
    """A signed-in operator; ``org_id`` None when unbound (see core/tenant_fence.py)."""

    org_id: str | None


def _notice(text: str, status: int) -> Response:
    return HTMLResponse(f"<!doctype html><title>brainkeep</title><p>{html.escape(text)}</p>",
                        status_code=status, headers={"Cache-Control": "no-store"})


class Consent:
    """The consent page: the operator logs in and approves or denies one request."""

    def __init__(self, provider: BrainkeepOAuthProvider, tokens: TokenService,
                 passwords: MetaStore, logins: RateLimiter | None = None) -> None:
        self.provider = provider
        self.tokens = tokens
        self.passwords = passwords  # where the operator's consent password is kept
        # Sign-in attempts per client address: the operator password must not
        # be guessable at network speed.
        self.logins = logins or RateLimiter(LOGINS_PER_MINUTE)

    def _operator(self, login: str) -> _Operator | None:
        """Who signed in: an admin bearer token (with its org binding), or the operator
        password (unbound); None for anything else."""
        check = self.tokens.verify(login) if login.startswith("bk_") else None
        if check is not None:
            token = check.token
            return _Operator(token.org_id) if token is not None and "admin" in token.scopes \
                else None
        return _Operator(None) if admin_password_ok(self.passwords, login) else None

    async def get(self, request: Request) -> Response:
        ticket = request.query_params.get("request", "")
        return self._page(ticket, None)

    async def post(self, request: Request) -> Response:
        form = await request.form()
        ticket = str(form.get("request", ""))
        found = self.provider.pending(ticket)
        if found is None:
            return self._page(ticket, None)
        if form.get("decision") == "approve":
            where = request.client.host if request.client else "unknown"
            wait = self.logins.acquire(f"login:{where}")
            if wait:
                return HTMLResponse(
                    "<!doctype html><title>brainkeep</title><p>Too many sign-in attempts. "
                    "Wait a minute and try again.</p>", status_code=429,
                    headers={"Retry-After": retry_after_header(wait)})
            operator = self._operator(str(form.get("login", "")))
            if operator is None:
                if self.provider.failed_login(ticket):
                    return _notice("Too many wrong sign-ins for this request, so it was "
                                   "cancelled. Start again from your client.", 403)
                return self._page(ticket, "Wrong admin token or password.", status=403)
            if not operator_covers(operator.org_id, found.client.org_id):
                # An org-bound admin hands out only its own tenant (core/tenant_fence.py).
                return self._page(ticket, f"This admin token is bound to org "
                                  f"{operator.org_id}; the client acts as "
                                  f"{found.client.org_id or 'no org (brain-wide)'}. Sign in as "
                                  "an admin of that org or an unbound one.", status=403)
        target = self.provider.answer(ticket, form.get("decision") == "approve")
        if target is None:
            return self._page(ticket, None)
        return RedirectResponse(target, status_code=302, headers={"Cache-Control": "no-store"})

    def _page(self, ticket: str, error: str | None, status: int = 200) -> Response:
        found = self.provider.pending(ticket)
        if found is None:
            return _notice("This authorization request is unknown or expired. Start again "
                           "from your client.", 400)
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
    consent = Consent(provider, tokens, service.store)
    routes += [Route(CONSENT_PATH, consent.get, methods=["GET"]),
               Route(CONSENT_PATH, consent.post, methods=["POST"])]
    return routes

"""brainkeep's store behind the official SDK's OAuth provider interface.

The SDK (``mcp.server.auth``) parses and answers the OAuth wire protocol;
this adapter only translates to ``core/oauth/service.py``, which decides.
Client secrets are stored hashed, while the SDK's own client authenticator
compares plaintext. So ``mcp/oauth_routes.py`` (``ClientAuth``) checks the
presented secret against the hash first, then runs the SDK handler inside
``presented(...)``: for that request only, ``get_client`` reports the client
it authenticated with the method it used and the secret it presented, and
the SDK repeats the check (same id, same secret, same place in the
request). Every other lookup reports a confidential client with its secret
method and no secret, which the SDK's authenticator refuses: a request that
reached the SDK without ``ClientAuth``, or names another client than the one
that authenticated, fails closed.

Authorization requests wait in memory for the operator's consent (ten
minutes at most, ``MAX_LOGIN_FAILURES`` wrong sign-ins at most); a restart
only means the user clicks "connect" again.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    IdentityAssertionParams,
    RefreshToken,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from brainkeep.core.clock import parse_ts
from brainkeep.core.oauth.models import ACCESS, CODE, REFRESH, OAuthClient
from brainkeep.core.oauth.service import IssuedTokens, OAuthService
from brainkeep.core.tokens import SCOPES
from brainkeep.errors import InvalidInput

CONSENT_PATH = "/oauth/consent"
PENDING_TTL_S = 600
MAX_PENDING = 1000
# Wrong operator sign-ins one authorization request survives; the per-address
# limiter (mcp/oauth_routes.py) bounds the rate, this bounds one request's total.
MAX_LOGIN_FAILURES = 5
SECRET_METHODS = ("client_secret_post", "client_secret_basic")


@dataclass(frozen=True)
class PendingAuthorization:
    """An authorization request shown on the consent page, not yet answered."""

    client: OAuthClient
    scopes: tuple[str, ...]
    redirect_uri: str
    state: str | None
    code_challenge: str
    resource: str | None
    created: float
    failures: int = 0


@dataclass(frozen=True)
class PresentedCredentials:
    """What one /token or /revoke request proved (checked against the hash by ClientAuth)."""

    client_id: str
    secret: str | None = field(repr=False)
    # "client_secret_basic", "client_secret_post", or "none" for a public client.
    method: str


_PRESENTED: ContextVar[PresentedCredentials | None] = ContextVar(
    "brainkeep_oauth_presented", default=None)


@contextmanager
def presented(credentials: PresentedCredentials) -> Iterator[None]:
    """Within this block (one request), the SDK sees ``credentials`` (see module doc)."""
    token = _PRESENTED.set(credentials)
    try:
        yield
    finally:
        _PRESENTED.reset(token)


def _epoch(ts: str) -> int:
    return int(parse_ts(ts).timestamp())


def sdk_client(client: OAuthClient, proof: PresentedCredentials | None = None
               ) -> OAuthClientInformationFull:
    """The SDK's view of a client: its real auth method, a secret only as presented.

    A confidential client carries ``proof``'s method and secret when ``proof``
    is this client's (already checked against the hash), else its declared
    secret method and no secret, which the SDK refuses (see module doc). It
    claims every scope so the SDK passes any request through; ``authorize``
    then grants only the client's own (OAuthService.allowed_scopes).
    """
    method, secret = "none", None
    if client.secret_hash is not None:
        declared = client.metadata.get("token_endpoint_auth_method")
        method = declared if declared in SECRET_METHODS else "client_secret_post"
        if proof is not None and proof.client_id == client.client_id:
            method, secret = proof.method, proof.secret
    return OAuthClientInformationFull(
        client_id=client.client_id,
        client_name=client.name,
        client_secret=secret,
        redirect_uris=[AnyUrl(u) for u in client.redirect_uris] or None,
        grant_types=list(client.grant_types),
        scope=" ".join(SCOPES),
        token_endpoint_auth_method=method,
    )


def _token(issued: IssuedTokens) -> OAuthToken:
    return OAuthToken(access_token=issued.access_token, expires_in=issued.expires_in,
                      scope=" ".join(issued.scopes), refresh_token=issued.refresh_token)


class BrainkeepOAuthProvider:
    """``OAuthAuthorizationServerProvider`` over ``OAuthService`` (see module doc)."""

    def __init__(self, service: OAuthService, issuer: str, *,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.service = service
        self.issuer = issuer.rstrip("/")
        # Injectable so a test can age a pending request without sleeping.
        self._now = monotonic
        self._pending: dict[str, PendingAuthorization] = {}
        self._lock = threading.Lock()

    # -- clients ---------------------------------------------------------------
    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        client = self.service.get_client(client_id)
        return None if client is None else sdk_client(client, _PRESENTED.get())

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """RFC 7591 (only routed with --allow-registration): the SDK chose the id and
        secret and returns them to the client once; only the secret's hash is kept.
        A registered client gets read and write unless it asks for less."""
        public = client_info.token_endpoint_auth_method == "none"
        grants = tuple(g for g in client_info.grant_types
                       if g in ("authorization_code", "refresh_token"))
        try:
            self.service.add_client(
                client_info.client_name or client_info.client_id,
                redirect_uris=tuple(str(u) for u in client_info.redirect_uris or ()),
                grant_types=grants or ("authorization_code", "refresh_token"),
                # Never admin by self-registration: that takes `oauth clients add`.
                scopes=tuple(s for s in (client_info.scope or "read write").split()
                             if s in ("read", "write")) or ("read", "write"),
                confidential=not public, client_id=client_info.client_id,
                secret=None if public else client_info.client_secret,
                metadata=client_info.model_dump(mode="json", exclude={"client_secret"},
                                                exclude_none=True))
        except InvalidInput as exc:
            raise RegistrationError("invalid_client_metadata", exc.message) from exc

    # -- consent ---------------------------------------------------------------
    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams
                        ) -> str:
        stored = self.service.get_client(client.client_id)
        if stored is None:  # the SDK just loaded it; removed in between
            raise AuthorizeError("unauthorized_client", "unknown client")
        try:
            scopes = self.service.allowed_scopes(stored, params.scopes)
        except InvalidInput as exc:
            raise AuthorizeError("invalid_scope", exc.message) from exc
        ticket = secrets.token_urlsafe(24)
        now = self._now()
        with self._lock:
            for key in [k for k, p in self._pending.items() if now - p.created > PENDING_TTL_S]:
                del self._pending[key]
            if len(self._pending) >= MAX_PENDING:
                self._pending.pop(next(iter(self._pending)))
            self._pending[ticket] = PendingAuthorization(
                stored, scopes, str(params.redirect_uri), params.state, params.code_challenge,
                params.resource, now)
        return f"{self.issuer}{CONSENT_PATH}?request={ticket}"

    def pending(self, ticket: str) -> PendingAuthorization | None:
        with self._lock:
            found = self._pending.get(ticket)
        if found is None or self._now() - found.created > PENDING_TTL_S:
            return None
        return found

    def failed_login(self, ticket: str) -> bool:
        """Count a wrong sign-in on this request; True when it is (now) dropped, so
        guessing has to start over from the client with a new request."""
        with self._lock:
            found = self._pending.get(ticket)
            if found is None:
                return True
            if found.failures + 1 >= MAX_LOGIN_FAILURES:
                del self._pending[ticket]
                return True
            self._pending[ticket] = replace(found, failures=found.failures + 1)
            return False

    def answer(self, ticket: str, approve: bool) -> str | None:
        """Where to send the browser after the operator's answer (None: unknown ticket)."""
        with self._lock:
            found = self._pending.pop(ticket, None)
        if found is None or self._now() - found.created > PENDING_TTL_S:
            return None
        if not approve:
            return construct_redirect_uri(found.redirect_uri, error="access_denied",
                                          error_description="The operator denied access.",
                                          state=found.state)
        code = self.service.issue_code(found.client, scopes=found.scopes,
                                       redirect_uri=found.redirect_uri,
                                       code_challenge=found.code_challenge,
                                       resource=found.resource)
        return construct_redirect_uri(found.redirect_uri, code=code, state=found.state,
                                      iss=self.issuer)

    # -- codes and tokens ------------------------------------------------------
    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> AuthorizationCode | None:
        grant = self.service.find(authorization_code, CODE)
        if grant is None or grant.client_id != client.client_id:
            return None
        return AuthorizationCode(
            code=authorization_code, scopes=list(grant.scopes),
            expires_at=float(_epoch(grant.expires_at)), client_id=grant.client_id,
            code_challenge=grant.code_challenge or "",
            redirect_uri=AnyUrl(grant.redirect_uri or ""),
            redirect_uri_provided_explicitly=True, resource=grant.resource)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        return self._redeem(authorization_code.code, CODE, None)

    async def load_refresh_token(self, client: OAuthClientInformationFull,
                                 refresh_token: str) -> RefreshToken | None:
        grant = self.service.find(refresh_token, REFRESH)
        if grant is None or grant.client_id != client.client_id:
            return None
        return RefreshToken(token=refresh_token, client_id=grant.client_id,
                            scopes=list(grant.scopes), expires_at=_epoch(grant.expires_at),
                            resource=grant.resource)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull,
                                     refresh_token: RefreshToken, scopes: list[str]
                                     ) -> OAuthToken:
        return self._redeem(refresh_token.token, REFRESH, tuple(scopes))

    async def load_access_token(self, token: str) -> AccessToken | None:
        grant = self.service.find(token, ACCESS)
        if grant is None:
            return None
        return AccessToken(token=token, client_id=grant.client_id, scopes=list(grant.scopes),
                           expires_at=_epoch(grant.expires_at), resource=grant.resource)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.service.revoke(token.token)

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull,
                                          params: IdentityAssertionParams) -> OAuthToken:
        """ID-JAG (SEP-990) is not offered: the SDK only routes it when enabled."""
        raise TokenError("unsupported_grant_type", "identity assertions are not supported")

    def _redeem(self, secret: str, kind: str, scopes: tuple[str, ...] | None) -> OAuthToken:
        grant = self.service.find(secret, kind)
        if grant is None:
            raise TokenError("invalid_grant", "grant does not exist")
        try:
            return _token(self.service.redeem(grant, scopes))
        except InvalidInput as exc:
            raise TokenError("invalid_grant", exc.message) from exc

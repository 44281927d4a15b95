"""OAuth 2.1 clients and grants over the Store: the rules, not the wire.

Secrets look like ``bko<k>_<id>_<random>`` (``k``: ``c`` code, ``a`` access,
``r`` refresh) and ``bkcs_<random>`` for client secrets. As with bearer
tokens (core/tokens.py), ``id`` is the public lookup key and only a SHA-256 of
the whole secret is stored (256 random bits: a slow KDF buys nothing).

Every grant descended from one authorization shares a ``family_id``. Codes
and refresh tokens are single use (a compare-and-set in the store); presenting
a spent one is treated as theft and revokes the whole family (OAuth 2.1
§4.1.3 and §4.3.1). Adding/removing clients and revoking families append
events; events never carry a secret or its hash.
"""

from __future__ import annotations

import hmac
import re
import secrets
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from brainkeep.core.clock import Clock, format_ts
from brainkeep.core.memory import validation
from brainkeep.core.models import NewEvent
from brainkeep.core.oauth.models import ACCESS, CODE, REFRESH, OAuthClient, OAuthGrant
from brainkeep.core.token_models import ApiToken
from brainkeep.core.tokens import TokenCheck, hash_secret, parse_scopes
from brainkeep.errors import InvalidInput, NotFound

if TYPE_CHECKING:
    from brainkeep.core.ports.composites import OAuthStore

CODE_TTL_S = 300
ACCESS_TTL_S = 3600
REFRESH_TTL_S = 30 * 86400
GRANT_TYPES = ("authorization_code", "refresh_token", "client_credentials")
OAUTH_PREFIX = "bko"
_KIND_CHAR = {CODE: "c", ACCESS: "a", REFRESH: "r"}
_SECRET = re.compile(r"^bko([car])_([0-9a-f]{16})_([A-Za-z0-9_-]{20,128})$")
_DUMMY_HASH = hash_secret("brainkeep-no-such-oauth-grant")


@dataclass(frozen=True)
class IssuedTokens:
    """What the token endpoint returns; the only time these secrets exist."""

    access_token: str = field(repr=False)
    expires_in: int
    scopes: tuple[str, ...]
    refresh_token: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class NewClient:
    """A registered client and its secret (None for a public client), shown once."""

    client: OAuthClient
    secret: str | None = field(repr=False)


def is_oauth_secret(secret: str | None) -> bool:
    return bool(secret) and str(secret).startswith(OAUTH_PREFIX)


def principal_of(grant: OAuthGrant) -> ApiToken:
    """A verified access token as the bearer-token principal the gate already knows.

    This is the one mapping from OAuth to a caller: the gate hands it to
    ``caller_for_token`` like any bearer token, so scopes, binding, rate
    limits (keyed by family, so rotation does not reset them) and the usage
    log are the same code path. ``oauth:`` cannot collide with a bearer token
    name (those never contain ``:``).
    """
    return ApiToken(
        id=f"oauth-{grant.family_id}", name=f"oauth:{grant.client_id}", secret_hash="",
        scopes=grant.scopes, created_at=grant.created_at, expires_at=grant.expires_at,
        org_id=grant.org_id, agent_id=grant.agent_id,
    )


@dataclass(frozen=True)
class OAuthService:
    """Client registry and grant lifecycle; brain-wide, like bearer tokens."""

    store: OAuthStore
    clock: Clock

    # -- clients ---------------------------------------------------------------
    def add_client(
        self, name: str, *, redirect_uris: tuple[str, ...] = (),
        grant_types: tuple[str, ...] = ("authorization_code", "refresh_token"),
        scopes: str | tuple[str, ...] = ("read", "write"), confidential: bool = True,
        org_id: str | None = None, agent_id: str | None = None,
        metadata: dict[str, Any] | None = None, client_id: str | None = None,
        secret: str | None = None,
    ) -> NewClient:
        """Register a client (CLI or RFC 7591); returns its secret once.

        Raises:
            InvalidInput: no name, an unknown grant type or scope, a bad org/agent
            id, an authorization-code client without redirect URIs, or a
            client-credentials client without a secret.

        ``client_id``/``secret`` are chosen here unless given (RFC 7591
        registration through the SDK picks its own).
        """
        clean = (name or "").strip()
        if not clean or len(clean) > 128:
            raise InvalidInput("A client needs a name (1-128 characters).",
                               suggestion="Pass --name, e.g. `--name claude-desktop`.",
                               field="name")
        unknown = sorted(set(grant_types) - set(GRANT_TYPES))
        if unknown or not grant_types:
            raise InvalidInput(f"Unsupported grant type(s): {', '.join(unknown) or 'none'}.",
                               suggestion=f"Use any of {', '.join(GRANT_TYPES)}.",
                               field="grant_types")
        if "authorization_code" in grant_types and not redirect_uris:
            raise InvalidInput("An authorization-code client needs a redirect URI.",
                               suggestion="Pass --redirect-uri (repeatable).",
                               field="redirect_uris")
        if "client_credentials" in grant_types and not confidential:
            raise InvalidInput("A client-credentials client must have a secret.",
                               suggestion="Drop --public for machine clients.",
                               field="grant_types")
        org = validation.org_id(org_id)
        agent = None if agent_id is None else validation.agent_id(agent_id)
        if confidential and not secret:
            secret = f"bkcs_{secrets.token_urlsafe(32)}"
        if not confidential:
            secret = None
        now = self.clock.now_ts()
        client = OAuthClient(
            client_id=client_id or f"bkc_{secrets.token_hex(8)}", name=clean,
            secret_hash=hash_secret(secret) if secret else None,
            redirect_uris=tuple(redirect_uris), grant_types=tuple(grant_types),
            scopes=parse_scopes(scopes), created_at=now, org_id=org, agent_id=agent,
            metadata=dict(metadata or {}),
        )
        with self.store.transaction():
            self.store.insert_oauth_client(client)
            self.store.append_event(NewEvent(
                kind="oauth.client.add", subject_type="oauth_client",
                subject_id=client.client_id,
                payload={"name": clean, "scopes": list(client.scopes),
                         "grant_types": list(client.grant_types), "org_id": org,
                         "agent_id": agent}), now)
        return NewClient(client, secret)

    def get_client(self, client_id: str) -> OAuthClient | None:
        """A live client by id (a removed one is unknown)."""
        client = self.store.get_oauth_client(client_id)
        return client if client is not None and client.revoked_at is None else None

    def list_clients(self, *, include_revoked: bool = False) -> list[OAuthClient]:
        return self.store.list_oauth_clients(include_revoked=include_revoked)

    def remove_client(self, client_id: str) -> OAuthClient:
        """Remove a client and revoke every token it holds.

        Raises:
            NotFound: no live client has that id.
        """
        now = self.clock.now_ts()
        with self.store.transaction():
            client = self.get_client(client_id)
            if client is None or not self.store.revoke_oauth_client(client_id, now):
                raise NotFound(f"No OAuth client {client_id!r}.",
                               suggestion="Run `brainkeep oauth clients list`.",
                               field="client_id")
            revoked = self.store.revoke_oauth_client_grants(client_id, now)
            self.store.append_event(NewEvent(
                kind="oauth.client.remove", subject_type="oauth_client",
                subject_id=client_id, payload={"name": client.name, "grants": revoked}), now)
        return replace(client, revoked_at=now)

    def client_secret_ok(self, client: OAuthClient, secret: str | None) -> bool:
        """Constant-time check of a presented client secret."""
        expected = client.secret_hash or _DUMMY_HASH
        same = hmac.compare_digest(expected, hash_secret(secret or ""))
        return client.secret_hash is not None and same

    def allowed_scopes(self, client: OAuthClient, requested: list[str] | None) -> tuple[str, ...]:
        """The requested scopes (default: all the client's) cut down to its own.

        Clients often ask for every scope the server advertises; OAuth lets the
        server grant fewer (the token response says which), so asking too much
        is not an error, only asking for nothing this client may have.

        Raises:
            InvalidInput: an unknown scope, or none of the requested ones allowed.
        """
        wanted = parse_scopes(requested) if requested else client.scopes
        granted = tuple(s for s in wanted if s in client.scopes)
        if not granted:
            raise InvalidInput(f"Client may not have scope(s) {', '.join(wanted)}.",
                               suggestion="Ask the operator to widen the client's scopes.",
                               field="scope")
        return granted

    # -- grants ----------------------------------------------------------------
    def issue_code(self, client: OAuthClient, *, scopes: tuple[str, ...], redirect_uri: str,
                   code_challenge: str, resource: str | None) -> str:
        """A single-use authorization code for an approved consent (starts a family)."""
        family = secrets.token_hex(8)
        with self.store.transaction():
            return self._issue(CODE, client, family, scopes, resource, CODE_TTL_S,
                               redirect_uri=redirect_uri, code_challenge=code_challenge)

    def find(self, secret: str | None, kind: str) -> OAuthGrant | None:
        """The grant a secret names (used or not), if the secret is genuine, unrevoked
        and unexpired; exchange decides what a spent one means."""
        match = _SECRET.match((secret or "").strip())
        grant = self.store.get_oauth_grant(match.group(2)) if match else None
        expected = grant.secret_hash if grant is not None else _DUMMY_HASH
        same = hmac.compare_digest(expected, hash_secret((secret or "").strip()))
        if grant is None or not same or grant.kind != kind or grant.revoked_at is not None:
            return None
        return grant if grant.expires_at > self.clock.now_ts() else None

    def redeem(self, grant: OAuthGrant, scopes: tuple[str, ...] | None = None) -> IssuedTokens:
        """Spend a code or refresh token for a new access + refresh pair (rotation).

        Raises:
            InvalidInput: the grant was already spent; its family is now revoked.
        """
        now = self.clock.now_ts()
        with self.store.transaction():
            if not self.store.use_oauth_grant(grant.id, now):
                self._revoke_family(grant, now, "reuse")
                spent = True
            else:
                spent = False
                client = self.get_client(grant.client_id)
                if client is None:
                    raise InvalidInput("The client was removed.", field="client_id")
                granted = scopes or grant.scopes
                access = self._issue(ACCESS, client, grant.family_id, granted, grant.resource,
                                     ACCESS_TTL_S, binding=grant)
                refresh = self._issue(REFRESH, client, grant.family_id, granted,
                                      grant.resource, REFRESH_TTL_S, binding=grant)
        if spent:
            # Raised after the transaction so the family revocation commits.
            raise InvalidInput("This grant was already used; every token from it is revoked.",
                               suggestion="Authorize again.", field="grant")
        return IssuedTokens(access, ACCESS_TTL_S, granted, refresh)

    def client_credentials(self, client: OAuthClient, scopes: tuple[str, ...],
                           resource: str | None) -> IssuedTokens:
        """An access token for a machine client (no refresh token: it can re-authenticate)."""
        with self.store.transaction():
            access = self._issue(ACCESS, client, secrets.token_hex(8), scopes, resource,
                                 ACCESS_TTL_S)
        return IssuedTokens(access, ACCESS_TTL_S, scopes)

    def verify_access(self, secret: str | None, resource: str | None) -> TokenCheck:
        """An OAuth access token as a bearer principal, checked for this resource.

        A token issued for another resource (RFC 8707 audience) is ``invalid``.
        """
        grant = self.find(secret, ACCESS)
        if grant is None:
            return TokenCheck(None, "invalid")
        if grant.resource is not None and resource is not None and grant.resource != resource:
            return TokenCheck(None, "invalid")
        return TokenCheck(principal_of(grant))

    def revoke(self, secret: str | None) -> bool:
        """RFC 7009: revoke an access or refresh token and its family; unknown is fine."""
        grant = self.find(secret, ACCESS) or self.find(secret, REFRESH)
        if grant is None:
            return False
        with self.store.transaction():
            self._revoke_family(grant, self.clock.now_ts(), "revoked")
        return True

    def _revoke_family(self, grant: OAuthGrant, now: str, why: str) -> None:
        count = self.store.revoke_oauth_family(grant.family_id, now)
        self.store.append_event(NewEvent(
            kind="oauth.revoke", subject_type="oauth_client", subject_id=grant.client_id,
            payload={"family_id": grant.family_id, "reason": why, "grants": count}), now)

    def _issue(self, kind: str, client: OAuthClient, family: str, scopes: tuple[str, ...],
               resource: str | None, ttl_s: int, *, redirect_uri: str | None = None,
               code_challenge: str | None = None, binding: OAuthGrant | None = None) -> str:
        grant_id = secrets.token_hex(8)
        secret = f"{OAUTH_PREFIX}{_KIND_CHAR[kind]}_{grant_id}_{secrets.token_urlsafe(32)}"
        now_dt = self.clock.now()
        bound = binding if binding is not None else client
        self.store.insert_oauth_grant(OAuthGrant(
            id=grant_id, kind=kind, secret_hash=hash_secret(secret), client_id=client.client_id,
            family_id=family, scopes=scopes, created_at=format_ts(now_dt),
            expires_at=format_ts(now_dt + timedelta(seconds=ttl_s)), resource=resource,
            redirect_uri=redirect_uri, code_challenge=code_challenge,
            org_id=bound.org_id, agent_id=bound.agent_id))
        return secret

"""Stored OAuth values, shared by the OAuth service and the store seam.

Kept apart from ``core/oauth/service.py`` for the same reason as
``core/token_models.py``: the Store protocol names these types while the
service depends on that protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Grant kinds; one table holds them all, because they share every column that
# matters (hash, client, family, scopes, binding, expiry, use, revocation).
CODE = "code"
ACCESS = "access"
REFRESH = "refresh"


@dataclass(frozen=True)
class OAuthClient:
    """A registered OAuth client. ``secret_hash`` is None for public (PKCE-only) clients."""

    client_id: str
    name: str
    secret_hash: str | None = field(repr=False)
    redirect_uris: tuple[str, ...]
    grant_types: tuple[str, ...]
    scopes: tuple[str, ...]
    created_at: str
    # The tenant and agent every token issued to this client acts as.
    org_id: str | None = None
    agent_id: str | None = None
    revoked_at: str | None = None
    # The RFC 7591 metadata the client registered with (never a secret).
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    def public(self) -> dict[str, Any]:
        """What `oauth clients list` may show: no secret, no hash."""
        return {
            "client_id": self.client_id,
            "name": self.name,
            "confidential": self.secret_hash is not None,
            "redirect_uris": list(self.redirect_uris),
            "grant_types": list(self.grant_types),
            "scopes": list(self.scopes),
            "org_id": self.org_id,
            "agent_id": self.agent_id,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
        }


@dataclass(frozen=True)
class OAuthGrant:
    """An authorization code, access token or refresh token (by ``kind``).

    ``id`` is the public lookup key embedded in the secret; only the secret's
    hash is stored. ``family_id`` ties every token descended from one
    authorization (or one client-credentials grant) together, so reuse of a
    rotated refresh token can revoke the whole family.
    """

    id: str
    kind: str
    secret_hash: str = field(repr=False)
    client_id: str
    family_id: str
    scopes: tuple[str, ...]
    created_at: str
    expires_at: str
    resource: str | None = None
    redirect_uri: str | None = None
    code_challenge: str | None = None
    org_id: str | None = None
    agent_id: str | None = None
    used_at: str | None = None
    revoked_at: str | None = None

    def live(self, now: str) -> bool:
        """Unrevoked, unused and unexpired at ``now`` (canonical timestamps)."""
        return self.revoked_at is None and self.used_at is None and self.expires_at > now

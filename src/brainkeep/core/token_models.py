"""The stored bearer token value, shared by the token service and the store seam.

It lives apart from ``core/tokens.py`` because ``core/ports/store.py`` names it in
the Store protocol while the token service depends on that protocol: one
module holding both would make the two import each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ApiToken:
    """A stored token: who it names and what it may do. Never holds the secret."""

    id: str
    name: str
    secret_hash: str = field(repr=False)
    scopes: tuple[str, ...]
    created_at: str
    expires_at: str | None = None
    revoked_at: str | None = None
    # The tenant and agent id every request with this token acts as
    # (None: the no-org tenant / an anonymous remote reader).
    org_id: str | None = None
    agent_id: str | None = None

    def status(self, now: str) -> str:
        """``revoked``, ``expired`` or ``active`` at ``now`` (canonical timestamps)."""
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= now:
            return "expired"
        return "active"

    def public(self, now: str) -> dict[str, Any]:
        """What `token list` may show: no secret, no hash."""
        return {
            "id": self.id,
            "name": self.name,
            "scopes": list(self.scopes),
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "revoked_at": self.revoked_at,
            "org_id": self.org_id,
            "agent_id": self.agent_id,
            "status": self.status(now),
        }

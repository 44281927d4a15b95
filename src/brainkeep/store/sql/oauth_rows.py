"""Row <-> value mapping for the OAuth tables, shared by both engines.

Both engines' rows index by column name, so one mapper serves both and the
two schemas cannot drift apart in how they read.
"""

from __future__ import annotations

import json
from typing import Any

from brainkeep.core.oauth.models import OAuthClient, OAuthGrant

CLIENT_COLUMNS = ("client_id", "name", "secret_hash", "redirect_uris", "grant_types", "scopes",
                  "org_id", "agent_id", "metadata", "created_at", "revoked_at")
GRANT_COLUMNS = ("id", "kind", "secret_hash", "client_id", "family_id", "scopes", "resource",
                 "redirect_uri", "code_challenge", "org_id", "agent_id", "created_at",
                 "expires_at", "used_at", "revoked_at")


def client_params(client: OAuthClient) -> tuple[Any, ...]:
    """Values in ``CLIENT_COLUMNS`` order."""
    return (client.client_id, client.name, client.secret_hash,
            json.dumps(list(client.redirect_uris)), json.dumps(list(client.grant_types)),
            json.dumps(list(client.scopes)), client.org_id, client.agent_id,
            json.dumps(client.metadata, sort_keys=True), client.created_at, client.revoked_at)


def client_from_row(row: Any) -> OAuthClient:
    return OAuthClient(
        client_id=row["client_id"], name=row["name"], secret_hash=row["secret_hash"],
        redirect_uris=tuple(json.loads(row["redirect_uris"])),
        grant_types=tuple(json.loads(row["grant_types"])),
        scopes=tuple(json.loads(row["scopes"])), created_at=row["created_at"],
        org_id=row["org_id"], agent_id=row["agent_id"], revoked_at=row["revoked_at"],
        metadata=json.loads(row["metadata"]),
    )


def grant_params(grant: OAuthGrant) -> tuple[Any, ...]:
    """Values in ``GRANT_COLUMNS`` order."""
    return (grant.id, grant.kind, grant.secret_hash, grant.client_id, grant.family_id,
            json.dumps(list(grant.scopes)), grant.resource, grant.redirect_uri,
            grant.code_challenge, grant.org_id, grant.agent_id, grant.created_at,
            grant.expires_at, grant.used_at, grant.revoked_at)


def grant_from_row(row: Any) -> OAuthGrant:
    return OAuthGrant(
        id=row["id"], kind=row["kind"], secret_hash=row["secret_hash"],
        client_id=row["client_id"], family_id=row["family_id"],
        scopes=tuple(json.loads(row["scopes"])), created_at=row["created_at"],
        expires_at=row["expires_at"], resource=row["resource"],
        redirect_uri=row["redirect_uri"], code_challenge=row["code_challenge"],
        org_id=row["org_id"], agent_id=row["agent_id"], used_at=row["used_at"],
        revoked_at=row["revoked_at"],
    )

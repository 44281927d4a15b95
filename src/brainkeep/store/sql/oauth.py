"""OAuth clients and grants, for both engines: rows hold secret hashes, never secrets.

The statements are plain SQL that SQLite and PostgreSQL both run, written
once (``store/sql/dialect.py``).
"""

from __future__ import annotations

from brainkeep.core.oauth.models import OAuthClient, OAuthGrant
from brainkeep.store.sql.dialect import SQL
from brainkeep.store.sql.oauth_rows import (
    CLIENT_COLUMNS,
    GRANT_COLUMNS,
    client_from_row,
    client_params,
    grant_from_row,
    grant_params,
)

_CLIENT_INSERT = (f"INSERT INTO oauth_clients ({', '.join(CLIENT_COLUMNS)}) "
                  f"VALUES ({', '.join(['?'] * len(CLIENT_COLUMNS))})")
_GRANT_INSERT = (f"INSERT INTO oauth_grants ({', '.join(GRANT_COLUMNS)}) "
                 f"VALUES ({', '.join(['?'] * len(GRANT_COLUMNS))})")


class OAuthMixin:
    """OAuth persistence; over ``self.sql``."""

    sql: SQL


    def insert_oauth_client(self, client: OAuthClient) -> None:
        """Insert a new client row. Must run inside ``transaction()``."""
        self.sql.execute(_CLIENT_INSERT, client_params(client))

    def get_oauth_client(self, client_id: str) -> OAuthClient | None:
        row = self.sql.one("SELECT * FROM oauth_clients WHERE client_id = ?", (client_id,))
        return None if row is None else client_from_row(row)

    def list_oauth_clients(self, *, include_revoked: bool = False) -> list[OAuthClient]:
        sql = "SELECT * FROM oauth_clients"
        if not include_revoked:
            sql += " WHERE revoked_at IS NULL"
        return [client_from_row(r) for r in self.sql.all(sql + " ORDER BY name, client_id")]

    def revoke_oauth_client(self, client_id: str, now: str) -> bool:
        """Stamp ``revoked_at`` (kept: the audit trail names the row); False if none was live."""
        cur = self.sql.execute(
            "UPDATE oauth_clients SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL",
            (now, client_id),
        )
        return cur.rowcount > 0

    def insert_oauth_grant(self, grant: OAuthGrant) -> None:
        """Insert a code or token row. Must run inside ``transaction()``."""
        self.sql.execute(_GRANT_INSERT, grant_params(grant))

    def get_oauth_grant(self, grant_id: str) -> OAuthGrant | None:
        row = self.sql.one("SELECT * FROM oauth_grants WHERE id = ?", (grant_id,))
        return None if row is None else grant_from_row(row)

    def use_oauth_grant(self, grant_id: str, now: str) -> bool:
        """Compare-and-set ``used_at``: exactly one caller wins a single-use grant."""
        cur = self.sql.execute(
            "UPDATE oauth_grants SET used_at = ? WHERE id = ? AND used_at IS NULL "
            "AND revoked_at IS NULL",
            (now, grant_id),
        )
        return cur.rowcount > 0

    def revoke_oauth_grant(self, grant_id: str, now: str) -> None:
        self.sql.execute(
            "UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
            (now, grant_id),
        )

    def revoke_oauth_family(self, family_id: str, now: str) -> int:
        """Revoke every live grant of a family; how many were live."""
        cur = self.sql.execute(
            "UPDATE oauth_grants SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL",
            (now, family_id),
        )
        return int(cur.rowcount)

    def revoke_oauth_client_grants(self, client_id: str, now: str) -> int:
        """Revoke every live grant issued to a client (it was removed)."""
        cur = self.sql.execute(
            "UPDATE oauth_grants SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL",
            (now, client_id),
        )
        return int(cur.rowcount)

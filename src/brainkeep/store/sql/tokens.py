"""HTTP bearer tokens, for both engines: rows hold a secret's hash, never the secret.

The statements are plain SQL that SQLite and PostgreSQL both run, written
once (``store/sql/dialect.py``).
"""

from __future__ import annotations

import json
from typing import Any

from brainkeep.core.token_models import ApiToken
from brainkeep.store.sql.dialect import SQL

_COLUMNS = ("id, name, secret_hash, scopes, created_at, expires_at, revoked_at, org_id, "
            "agent_id")


def _token_from_row(row: Any) -> ApiToken:
    return ApiToken(
        id=row["id"],
        name=row["name"],
        secret_hash=row["secret_hash"],
        scopes=tuple(json.loads(row["scopes"])),
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        revoked_at=row["revoked_at"],
        org_id=row["org_id"],
        agent_id=row["agent_id"],
    )


class TokensMixin:
    """Token persistence; over ``self.sql``."""

    sql: SQL


    def insert_token(self, token: ApiToken) -> None:
        """Insert a new token row. Must run inside ``transaction()``."""
        self.sql.execute(
            f"INSERT INTO tokens ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                token.id,
                token.name,
                token.secret_hash,
                json.dumps(list(token.scopes)),
                token.created_at,
                token.expires_at,
                token.revoked_at,
                token.org_id,
                token.agent_id,
            ),
        )

    def get_token(self, token_id: str) -> ApiToken | None:
        row = self.sql.one(f"SELECT {_COLUMNS} FROM tokens WHERE id = ?", (token_id,))
        return None if row is None else _token_from_row(row)

    def get_live_token_by_name(self, name: str) -> ApiToken | None:
        """The unrevoked token called ``name`` (expired ones included)."""
        row = self.sql.one(
            f"SELECT {_COLUMNS} FROM tokens WHERE name = ? AND revoked_at IS NULL", (name,)
        )
        return None if row is None else _token_from_row(row)

    def list_tokens(self, *, include_revoked: bool = False) -> list[ApiToken]:
        sql = f"SELECT {_COLUMNS} FROM tokens"
        if not include_revoked:
            sql += " WHERE revoked_at IS NULL"
        rows = self.sql.all(sql + " ORDER BY name, created_at")
        return [_token_from_row(r) for r in rows]

    def revoke_token(self, token_id: str, now: str) -> None:
        """Stamp ``revoked_at`` (kept, not deleted: the audit trail names the row)."""
        self.sql.execute(
            "UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
            (now, token_id),
        )

    def count_usable_tokens(self, now: str) -> int:
        """Tokens neither revoked nor expired at ``now``."""
        row = self.sql.one(
            "SELECT COUNT(*) FROM tokens WHERE revoked_at IS NULL "
            "AND (expires_at IS NULL OR expires_at > ?)",
            (now,),
        )
        return int(row[0])

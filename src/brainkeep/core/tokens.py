"""Bearer tokens for remote (HTTP) callers: create, list, revoke, verify.

A secret looks like ``bk_<id>_<random>``. ``id`` is a public lookup key, so
verification finds the row by id and then compares the SHA-256 of the whole
secret in constant time; nothing derived from the secret is ever used as a
search key. Only the hash is stored (secrets carry 256 random bits, so a plain
SHA-256 suffices; a slow KDF buys nothing against brute force here). Creating
and revoking append ``token.create`` / ``token.revoke`` events in the same
transaction; events never carry the secret or its hash.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from brainkeep.core.clock import Clock
from brainkeep.core.memory import validation
from brainkeep.core.models import NewEvent
from brainkeep.core.token_models import ApiToken
from brainkeep.core.ttl import parse_ttl
from brainkeep.errors import InvalidInput, NotFound

if TYPE_CHECKING:
    from brainkeep.core.ports.composites import TokenStore

__all__ = ["ApiToken", "CreatedToken", "TokenCheck", "TokenService", "hash_secret",
           "parse_scopes"]

SCOPES = ("read", "write", "admin")
SECRET_PREFIX = "bk_"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_SECRET = re.compile(r"^bk_([0-9a-f]{12})_([A-Za-z0-9_-]{20,128})$")
# Compared against when the id is unknown, so a miss costs the same as a hit.
_DUMMY_HASH = hashlib.sha256(b"brainkeep-no-such-token").hexdigest()


def hash_secret(secret: str) -> str:
    """The stored form of a secret (hex SHA-256)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CreatedToken:
    """A new token and its secret; the only time the secret exists in memory."""

    token: ApiToken
    secret: str = field(repr=False)


@dataclass(frozen=True)
class TokenCheck:
    """Outcome of verifying a presented secret.

    ``token`` is set only when the secret is valid now; otherwise ``reason`` is
    one of ``missing``, ``invalid``, ``expired``, ``revoked``.
    """

    token: ApiToken | None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.token is not None


def parse_scopes(raw: str | Iterable[str]) -> tuple[str, ...]:
    """Comma-separated (or listed) scopes, checked and in canonical order.

    Raises:
        InvalidInput: empty, or a scope other than read, write, admin.
    """
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    wanted = {item.strip().lower() for item in items if item and item.strip()}
    unknown = sorted(wanted - set(SCOPES))
    if unknown or not wanted:
        raise InvalidInput(
            f"Unknown scope(s): {', '.join(unknown)}." if unknown else "No scope given.",
            suggestion="Pass --scopes with any of read, write, admin, e.g. `--scopes read,write` "
            "(write implies read; admin allows everything).",
            field="scopes",
        )
    return tuple(s for s in SCOPES if s in wanted)


@dataclass(frozen=True)
class TokenService:
    """Token lifecycle over a Store; brain-wide (tokens are not per source)."""

    store: TokenStore
    clock: Clock

    def create(
        self,
        name: str,
        scopes: str | Iterable[str],
        *,
        expires: str | None = None,
        org_id: str | None = None,
        agent_id: str | None = None,
    ) -> CreatedToken:
        """Create a token and return it with its secret (shown once, stored hashed).

        Args:
            name: unique among unrevoked tokens; letters, digits, ``.``, ``_``, ``-``.
            scopes: e.g. ``"read,write"``.
            expires: lifetime shorthand (``30d``, ``12h``, ``45m``) or an ISO 8601 time.
            org_id: the tenant every request with this token acts in (None: no org).
            agent_id: the agent id it reads and writes as (None: anonymous remote).

        Raises:
            InvalidInput: bad name, scopes, expiry, org or agent id, or the name is taken.
        """
        clean = (name or "").strip()
        if not _NAME.match(clean):
            raise InvalidInput(
                f"Bad token name {name!r}.",
                suggestion="Use 1-64 letters, digits, '.', '_' or '-', starting with a letter "
                "or digit, e.g. `laptop-agent`.",
                field="name",
            )
        wanted = parse_scopes(scopes)
        # The gRPC rules, so a bound agent is the same reader on both protocols.
        org = validation.org_id(org_id)
        agent = None if agent_id is None else validation.agent_id(agent_id)
        now_dt = self.clock.now()
        now = self.clock.now_ts()
        expires_at = self._expiry(expires, now_dt, now) if expires else None
        token_id = secrets.token_hex(6)
        secret = f"{SECRET_PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
        token = ApiToken(
            id=token_id,
            name=clean,
            secret_hash=hash_secret(secret),
            scopes=wanted,
            created_at=now,
            expires_at=expires_at,
            org_id=org,
            agent_id=agent,
        )
        with self.store.transaction():
            if self.store.get_live_token_by_name(clean) is not None:
                raise InvalidInput(
                    f"A token named {clean!r} already exists.",
                    suggestion=f"Pick another name, or `brainkeep token revoke {clean}` first "
                    "to replace it.",
                    field="name",
                )
            self.store.insert_token(token)
            self.store.append_event(
                NewEvent(
                    kind="token.create",
                    subject_type="token",
                    subject_id=token_id,
                    payload={"name": clean, "scopes": list(wanted), "expires_at": expires_at,
                             "org_id": org, "agent_id": agent},
                ),
                now,
            )
        return CreatedToken(token=token, secret=secret)

    def list_tokens(self, *, include_revoked: bool = False) -> list[ApiToken]:
        """Tokens by name (unrevoked only unless asked)."""
        return self.store.list_tokens(include_revoked=include_revoked)

    def revoke(self, name: str) -> ApiToken:
        """Revoke the live token called ``name``; takes effect on the next request.

        Raises:
            NotFound: no unrevoked token has that name.
        """
        now = self.clock.now_ts()
        with self.store.transaction():
            token = self.store.get_live_token_by_name((name or "").strip())
            if token is None:
                raise NotFound(
                    f"No live token named {name!r}.",
                    suggestion="Run `brainkeep token list` to see token names.",
                    field="name",
                )
            self.store.revoke_token(token.id, now)
            self.store.append_event(
                NewEvent(
                    kind="token.revoke",
                    subject_type="token",
                    subject_id=token.id,
                    payload={"name": token.name},
                ),
                now,
            )
        return replace(token, revoked_at=now)

    def verify(self, secret: str | None) -> TokenCheck:
        """Check a presented secret; read-only, so it is cheap enough per request."""
        if not secret:
            return TokenCheck(None, "missing")
        match = _SECRET.match(secret.strip())
        token = self.store.get_token(match.group(1)) if match else None
        expected = token.secret_hash if token is not None else _DUMMY_HASH
        same = hmac.compare_digest(expected, hash_secret(secret.strip()))
        if token is None or not same:
            return TokenCheck(None, "invalid")
        status = token.status(self.clock.now_ts())
        if status != "active":
            return TokenCheck(None, status)
        return TokenCheck(token)

    def has_usable_tokens(self) -> bool:
        """Whether any token could authenticate right now."""
        return self.store.count_usable_tokens(self.clock.now_ts()) > 0

    def _expiry(self, expires: str, now_dt: Any, now: str) -> str:
        try:
            expires_at = parse_ttl(expires, now_dt)
        except InvalidInput as exc:
            raise InvalidInput(
                f"Cannot read --expires {expires!r}.",
                suggestion='Use a lifetime like "30d", "12h" or "45m", or an ISO 8601 time '
                'like "2027-01-01T00:00:00Z".',
                field="expires",
            ) from exc
        if expires_at <= now:
            raise InvalidInput(
                f"--expires {expires!r} is in the past.",
                suggestion='Use a future time, or a lifetime like "30d".',
                field="expires",
            )
        return expires_at

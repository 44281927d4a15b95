"""The operator's consent-page password: a salted scrypt hash in the brain's meta.

Unlike token secrets, a password is chosen by a human and may be weak, so it
gets a slow, salted KDF. Only ``scrypt$n$r$p$salt$hash`` is stored.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import TYPE_CHECKING

from brainkeep.errors import InvalidInput

if TYPE_CHECKING:
    from brainkeep.core.ports.composites import MetaStore

META_KEY = "oauth.admin_password"
MIN_LENGTH = 8
_N, _R, _P = 2**14, 8, 1


def _derive(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32)


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = _derive(password, salt, _N, _R, _P)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def password_matches(stored: str | None, password: str | None) -> bool:
    """Constant-time check of ``password`` against a stored hash (None: no password set)."""
    if not stored or not password:
        return False
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        actual = _derive(password, bytes.fromhex(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(actual.hex(), digest)


def set_admin_password(store: MetaStore, password: str) -> None:
    """Store the consent-page password (hashed); replaces any earlier one.

    Raises:
        InvalidInput: shorter than ``MIN_LENGTH`` characters.
    """
    if len(password or "") < MIN_LENGTH:
        raise InvalidInput(f"The password needs at least {MIN_LENGTH} characters.",
                           suggestion="Choose a longer password.", field="password")
    with store.transaction():
        store.set_meta(META_KEY, hash_password(password))


def admin_password_ok(store: MetaStore, password: str | None) -> bool:
    return password_matches(store.get_meta(META_KEY), password)

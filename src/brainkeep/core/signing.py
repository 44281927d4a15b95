"""Ed25519 keys that sign chain checkpoints; the brain never stores a private key.

A signing key comes from a file (``--signing-key PATH`` or
``BRAINKEEP_SIGNING_KEY_FILE``) or from the environment
(``BRAINKEEP_SIGNING_KEY``: PEM, or base64 of the 32-byte raw seed). A public
key (``--public-key PATH``) is PEM or base64 of the 32 raw bytes. The
composition root (the CLI) reads the environment and passes it in.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from brainkeep.errors import InvalidInput

ENV_KEY = "BRAINKEEP_SIGNING_KEY"
ENV_KEY_FILE = "BRAINKEEP_SIGNING_KEY_FILE"
_RAW = serialization.Encoding.Raw, serialization.PublicFormat.Raw
_FIX = ("Pass an Ed25519 key: a PEM file from `brainkeep verify --keygen PATH`, "
        "or base64 of its 32 bytes.")


def _raw_bytes(text: bytes, what: str) -> bytes:
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidInput(f"The {what} is neither PEM nor base64.", suggestion=_FIX) from exc
    if len(raw) != 32:
        raise InvalidInput(f"The {what} is not a 32-byte Ed25519 key.", suggestion=_FIX)
    return raw


def parse_private_key(data: bytes) -> Ed25519PrivateKey:
    """An Ed25519 private key from PEM (PKCS#8, unencrypted) or base64 of its seed.

    Raises:
        InvalidInput: not an Ed25519 private key.
    """
    if b"-----BEGIN" in data:
        try:
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise InvalidInput("The signing key is not a readable PEM private key.",
                               suggestion=_FIX) from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise InvalidInput("The signing key is not an Ed25519 key.", suggestion=_FIX)
        return key
    return Ed25519PrivateKey.from_private_bytes(_raw_bytes(data, "signing key"))


def parse_public_key(data: bytes) -> Ed25519PublicKey:
    """An Ed25519 public key from PEM (SubjectPublicKeyInfo) or base64 of its 32 bytes.

    Raises:
        InvalidInput: not an Ed25519 public key.
    """
    if b"-----BEGIN" in data:
        try:
            key = serialization.load_pem_public_key(data)
        except ValueError as exc:
            raise InvalidInput("The public key is not a readable PEM public key.",
                               suggestion=_FIX) from exc
        if not isinstance(key, Ed25519PublicKey):
            raise InvalidInput("The public key is not an Ed25519 key.", suggestion=_FIX)
        return key
    return Ed25519PublicKey.from_public_bytes(_raw_bytes(data, "public key"))


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"Cannot read the {what} {str(path)!r}: {exc.strerror}.",
                           suggestion=_FIX) from exc


def load_signing_key(path: Path | None, env: Mapping[str, str]) -> Ed25519PrivateKey | None:
    """The signing key from ``path``, else ``BRAINKEEP_SIGNING_KEY_FILE``, else
    ``BRAINKEEP_SIGNING_KEY`` (None: no key configured)."""
    if path is None and env.get(ENV_KEY_FILE):
        path = Path(env[ENV_KEY_FILE])
    if path is not None:
        return parse_private_key(_read(path, "signing key file"))
    if env.get(ENV_KEY):
        return parse_private_key(env[ENV_KEY].encode())
    return None


def load_public_key(path: Path) -> Ed25519PublicKey:
    """The public key in ``path`` (PEM or base64)."""
    return parse_public_key(_read(path, "public key file"))


def public_bytes(key: Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a public key."""
    return key.public_bytes(*_RAW)


def fingerprint(key: Ed25519PublicKey) -> str:
    """``sha256:<hex>`` of the raw public key: names the key in checkpoint events."""
    return "sha256:" + hashlib.sha256(public_bytes(key)).hexdigest()


def verifies(key: Ed25519PublicKey, signature: bytes, message: bytes) -> bool:
    """True when ``signature`` is ``key``'s signature of ``message``."""
    try:
        key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


def write_key_file(path: Path) -> Ed25519PrivateKey:
    """Create a new key at ``path`` (PEM, mode 0600) and its public key at ``path.pub``.

    Never overwrites: an existing file is refused, so a key in use cannot be
    lost by a typo.

    Raises:
        InvalidInput: the file exists or cannot be created.
    """
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    pub = key.public_key().public_bytes(serialization.Encoding.PEM,
                                        serialization.PublicFormat.SubjectPublicKeyInfo)
    pub_path = path.with_name(path.name + ".pub")
    try:
        # O_EXCL + mode at creation: the key is never readable by others, not
        # even for the instant a chmod after the write would leave open.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError as exc:
        raise InvalidInput(f"{str(path)!r} already exists; not overwriting a key.",
                           suggestion="Choose a new path, or delete the old key first.") from exc
    except OSError as exc:
        raise InvalidInput(f"Cannot create {str(path)!r}: {exc.strerror}.") from exc
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    pub_path.write_bytes(pub)
    return key

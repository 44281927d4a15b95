"""Identifiers: UUIDv7 for memories (time-ordered, the gRPC id)."""

from __future__ import annotations

import os
import time
import uuid


def uuid7(unix_ms: int | None = None) -> str:
    """Return a new RFC 9562 UUIDv7 string.

    Python 3.11 has no ``uuid.uuid7``; the layout is 48 bits of Unix
    milliseconds, version 7, 12 random bits, variant 10, 62 random bits.
    """
    ms = int(time.time() * 1000) if unix_ms is None else unix_ms
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


def is_uuid(text: str) -> bool:
    """True when ``text`` parses as a UUID."""
    try:
        uuid.UUID(text)
    except (ValueError, AttributeError, TypeError):
        return False
    return True

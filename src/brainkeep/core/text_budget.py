"""Token estimates and injectable one-line text: the rules every context block shares.

Kept in a module that imports nothing, so the per-prompt hook (a fresh
process: every import is paid on every prompt) reads them without the verbs'
validation and time helpers. ``core.verbs.common`` re-exports both.
"""

from __future__ import annotations

import math


def estimate_tokens(text: str | None) -> int:
    """The char/4 token estimate (±10–15%)."""
    return math.ceil(len(text) / 4) if text else 0


def clean_line(text: str | None) -> str:
    """One-line, comment-safe text for the injectable envelope.

    Newlines could forge a section header and `-->` could close the marker
    comment, so stored text cannot pose as instructions.
    """
    if not text:
        return ""
    return " ".join(str(text).split()).replace("-->", "--\u200b>")

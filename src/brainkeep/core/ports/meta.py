"""The brain's small key-value settings table (model names, password hashes, markers).

Part of the Store protocol (core/ports/store.py); no method commits on its own.
"""

from __future__ import annotations

from typing import Protocol


class MetaRepository(Protocol):
    """Named values the brain keeps about itself."""

    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...

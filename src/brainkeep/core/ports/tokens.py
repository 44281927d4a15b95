"""The tokens repository: HTTP bearer tokens, stored hashed (core/tokens.py).

Part of the Store protocol (core/ports/store.py); no method commits on its own.
"""

from __future__ import annotations

from typing import Protocol

from brainkeep.core.token_models import ApiToken


class TokenRepository(Protocol):
    """HTTP bearer tokens, stored hashed (core/tokens.py)."""

    # -- tokens ----------------------------------------------------------------
    def insert_token(self, token: ApiToken) -> None: ...
    def get_token(self, token_id: str) -> ApiToken | None: ...
    def get_live_token_by_name(self, name: str) -> ApiToken | None: ...
    def list_tokens(self, *, include_revoked: bool = False) -> list[ApiToken]: ...
    def revoke_token(self, token_id: str, now: str) -> None: ...
    def count_usable_tokens(self, now: str) -> int: ...

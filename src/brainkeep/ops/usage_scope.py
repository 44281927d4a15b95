"""Which usage lines a reader may see: the audit log's rule, applied to ``usage.jsonl``.

A usage line names its caller by token name (``token_name``; OAuth callers
as ``oauth:CLIENT_ID``, ``core/oauth/service.principal_of``) and carries no
org, so a line belongs to the org of the token (or OAuth client) of that
name. Names a revoked token once held and a live one holds now are the same
string: when the tokens of one name are of different orgs, the line cannot
be attributed and is hidden, like a line with no token at all (the CLI,
stdio, gRPC: no org on record). The visibility rule itself is
``core/event_scope`` (trusted and unbound readers see everything).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from brainkeep.core.event_scope import NOBODY, Owner, log_visible, tenant
from brainkeep.core.ports.store import Store
from brainkeep.core.scope import ReadScope

OAUTH_PREFIX = "oauth:"
# A name not seen yet (a token made after the page opened) reloads the map,
# at most this often, so a live feed shows a new token's calls.
RELOAD_S = 1.0


def _owners(store: Store) -> dict[str, Owner]:
    found: dict[str, set[str | None]] = {}
    for token in store.list_tokens(include_revoked=True):
        found.setdefault(token.name, set()).add(token.org_id)
    for client in store.list_oauth_clients(include_revoked=True):
        found.setdefault(OAUTH_PREFIX + client.client_id, set()).add(client.org_id)
    return {name: tenant(next(iter(orgs))) if len(orgs) == 1 else NOBODY
            for name, orgs in found.items()}


class UsageScope:
    """One reader's filter over usage lines (thread-safe: the live feed polls in threads)."""

    def __init__(self, store: Store, scope: ReadScope) -> None:
        self.store = store
        self.scope = scope
        self._owners: dict[str, Owner] | None = None
        self._loaded = 0.0
        self._lock = threading.Lock()

    @property
    def everything(self) -> bool:
        """The reader sees every line (no lookups needed)."""
        return log_visible(self.scope)

    def visible(self, line: Mapping[str, Any]) -> bool:
        """Whether the reader may see this parsed usage line."""
        if self.everything:
            return True
        name = line.get("token_name")
        if not isinstance(name, str) or not name:
            return False
        return self._owner(name).covered_by(self.scope.org_id)

    def _owner(self, name: str) -> Owner:
        with self._lock:
            now = time.monotonic()
            stale = self._owners is None or (name not in self._owners
                                             and now - self._loaded >= RELOAD_S)
            if stale:
                self._owners, self._loaded = _owners(self.store), now
            assert self._owners is not None
            return self._owners.get(name, NOBODY)

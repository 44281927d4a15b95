"""Who is calling: the trust facts every service decision depends on."""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core.scope import ReadScope


@dataclass(frozen=True)
class Caller:
    """A caller of a domain service.

    ``remote`` callers (MCP stdio and HTTP) see world-visible facts and
    non-private pages only; only the local CLI is trusted (DESIGN.md).
    ``client_id`` namespaces delta session cursors: ``local`` for the CLI, a
    token's name for HTTP, ``remote`` for auth-less remote callers.
    """

    remote: bool
    client_id: str
    transport: str  # cli | stdio | http | grpc
    scopes: frozenset[str] = frozenset({"read", "write", "admin"})
    token_name: str | None = None
    # The tenant and agent identity a token binds this caller to (None: none).
    org_id: str | None = None
    agent_id: str | None = None

    @property
    def include_private(self) -> bool:
        return not self.remote

    @property
    def read_scope(self) -> ReadScope:
        """This caller as a reader (core/scope.py holds the rules)."""
        return ReadScope(org_id=self.org_id, reader=self.agent_id, trusted=not self.remote)


LOCAL = Caller(remote=False, client_id="local", transport="cli")
STDIO = Caller(remote=True, client_id="remote", transport="stdio")

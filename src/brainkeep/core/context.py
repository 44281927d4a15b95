"""Who is calling: the trust facts every service decision depends on."""

from __future__ import annotations

from dataclasses import dataclass


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

    @property
    def include_private(self) -> bool:
        return not self.remote


LOCAL = Caller(remote=False, client_id="local", transport="cli")
STDIO = Caller(remote=True, client_id="remote", transport="stdio")

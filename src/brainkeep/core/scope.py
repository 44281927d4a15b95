"""The read scope: who reads, in which tenant, trusted or not, at what instant.

Every surface maps its caller to one ``ReadScope`` (the CLI to a trusted
local scope, an MCP stdio or HTTP caller to a remote scope carrying its
token's org and agent, a gRPC request to its ``agent_id``/``org_id``), and
every engine compiles it to a query once. The rules live here and in the
engine's one compiled fragment, nowhere else (docs/data-model.md,
"Visibility"):

* tenant: a memory in org X is never visible to a reader of another org
  (``org_id`` None is the tenant without an org, where MCP facts live);
* lifecycle: deleted, expired and past-``valid_until`` rows are hidden, or,
  with ``as_of``, rows live at that instant are shown;
* quarantined memories are invisible to every remote reader;
* ``private`` memories: their owner only (and the trusted local CLI);
  ``shared``: the owner plus holders of a live ACL or delegation;
  ``public``/``global`` (MCP ``world``): every reader of the same tenant;
* a memory Share turned from ``private`` into ``shared``
  (``shared_by_grant``) is ``shared`` only while at least one of its ACLs is
  live (unexpired, unrevoked); after that it is ``private`` again, so a
  delegation made later cannot expose what the owner shared for an hour.
  A memory written ``shared`` stays shared whatever its ACLs do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from brainkeep.core.models import Memory

# Scopes every reader of the same tenant sees; they map to visibility=world.
OPEN_SCOPES = ("public", "global")


@dataclass(frozen=True)
class ReadScope:
    """One caller as a reader of memories and pages.

    Attributes:
        org_id: The tenant (``None`` = the tenant without an org).
        reader: The agent reading (``None`` = an anonymous remote reader, who
            owns nothing and holds no grants).
        trusted: The local CLI: sees private and quarantined rows of its tenant.
        as_of: Show what was live at this instant instead of now.
    """

    org_id: str | None = None
    reader: str | None = None
    trusted: bool = False
    as_of: str | None = None

    @property
    def include_private(self) -> bool:
        """Private pages (``visibility: private``) are shown to trusted readers only."""
        return self.trusted

    def at(self, as_of: str | None) -> ReadScope:
        """The same reader, looking at another instant."""
        return replace(self, as_of=as_of)

    def owns(self, memory: Memory) -> bool:
        """Whether this reader is the memory's owner (MCP facts without an agent have none)."""
        return bool(self.reader) and memory.agent_id == self.reader


def in_tenant(memory: Memory, scope: ReadScope) -> bool:
    """Whether ``memory`` belongs to the scope's tenant."""
    return memory.org_id == scope.org_id


def shares_live(memory: Memory, any_live_acl: Callable[[], bool]) -> bool:
    """Whether ``memory`` reads as ``shared`` (else as ``private``) for non-owners.

    ``any_live_acl`` (is any ACL on the memory unexpired and unrevoked?) is
    asked only for memories Share made shared: an expired or revoked share
    must not leave a row that later delegations (by tags, or all) cover.
    """
    if memory.scope != "shared":
        return False
    return not memory.shared_by_grant or any_live_acl()


def can_see(memory: Memory, scope: ReadScope, has_live_grant: Callable[[], bool],
            any_live_acl: Callable[[], bool]) -> bool:
    """The visibility rule for one row already known to be live.

    Engines compile the same rule into their queries; this form serves reads
    by id. ``has_live_grant`` (does the reader hold a live ACL or delegation?)
    and ``any_live_acl`` (see ``shares_live``) are asked only for ``shared``
    rows of other owners.
    """
    if not in_tenant(memory, scope):
        return False
    if scope.trusted:
        return True
    if memory.quarantined:
        return False
    if memory.scope in OPEN_SCOPES or scope.owns(memory):
        return True
    return bool(scope.reader) and shares_live(memory, any_live_acl) and has_live_grant()


def may_change(memory: Memory, scope: ReadScope, holds: Callable[[str], bool],
               permission: str) -> bool:
    """Whether the scope's reader may ``permission`` (write, delete, share) ``memory``.

    The same rule for MCP and gRPC: trusted readers and the owner may; a
    memory without an owner (an MCP fact written by no bound agent) may be
    changed by any writer of its tenant who can see it; any other needs a live
    grant implying ``permission`` (``holds`` asks the store). Callers check
    visibility first, so an unseen memory is ``not_found``, never denied.
    """
    if not in_tenant(memory, scope):
        return False
    if scope.trusted or scope.owns(memory) or not memory.agent_id:
        return True
    return bool(scope.reader) and holds(permission)

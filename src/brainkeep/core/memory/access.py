"""Who may do what to one memory addressed by id.

Rules (docs/grpc.md, "Visibility"):

* the owner (``agent_id`` of the row) holds every permission; the MCP owner
  ``''`` can never be a gRPC caller, so MCP facts have no gRPC owner;
* an unexpired, unrevoked ACL (Share) or delegation (Delegate) grants its
  permission and what it implies (every grant implies ``read``; ``admin``
  implies all);
* a memory Share turned from private into shared reads as private again once
  none of its ACLs is live (``core/scope.py`` ``shares_live``): its owner only;
* a memory without an owner (an MCP fact of an unbound caller) may be changed
  by any writer who can read it — the rule MCP ``forget`` applies too
  (``core/scope.py`` ``may_change``);
* ``public``/``global`` memories are readable by anyone, but by id only when
  they belong to no org: by-id RPCs carry no ``org_id``, and tenants stay
  isolated (Recall with ``org_id`` reaches an org's open memories).
"""

from __future__ import annotations

from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.models import IMPLIED, OPEN_SCOPES, Grant
from brainkeep.core.models import Memory
from brainkeep.core.scope import ReadScope, may_change, shares_live
from brainkeep.errors import NotFound, PermissionDenied

OWNER = Grant("admin", "owner")
TENANT = Grant("admin", "tenant")


def is_live(memory: Memory, now: str) -> bool:
    """Not deleted, expired, past its TTL, or quarantined."""
    return memory.is_active(now) and not memory.quarantined


def grants(ctx: MnemoContext, memory: Memory, agent: str, now: str) -> list[Grant]:
    """Every grant ``agent`` holds on ``memory`` (the owner first)."""
    if memory.agent_id and memory.agent_id == agent:
        return [OWNER]
    return ctx.store.grants_for(memory, agent, now)


def holding(held: list[Grant], permission: str) -> Grant | None:
    """The first grant that implies ``permission``."""
    return next((g for g in held if permission in IMPLIED[g.permission]), None)


def can_read(ctx: MnemoContext, memory: Memory, agent: str, now: str) -> bool:
    """True when ``agent`` may read ``memory`` by id."""
    if memory.scope in OPEN_SCOPES and memory.org_id is None:
        return True
    if memory.agent_id and memory.agent_id == agent:
        return True
    if memory.scope == "shared" and not shares_live(
        memory, lambda: ctx.store.has_live_acl(memory.id, now)
    ):
        return False  # the share expired or was revoked: private again
    if memory.scope == "private":
        return False
    return holding(grants(ctx, memory, agent, now), "read") is not None


def load(ctx: MnemoContext, uuid: str, agent: str, now: str, *, include_deleted: bool = False
         ) -> Memory:
    """The memory ``uuid`` if ``agent`` can read it (else ``NotFound``, never a hint)."""
    memory = ctx.store.get_memory_by_uuid(uuid)
    if (
        memory is None
        or memory.source_id != ctx.source_id
        or not (include_deleted or is_live(memory, now))
        or not can_read(ctx, memory, agent, now)
    ):
        raise NotFound(f"No memory {uuid} visible to agent {agent!r}.", field="memory_id")
    return memory


def require(ctx: MnemoContext, memory: Memory, agent: str, permission: str, now: str) -> Grant:
    """The grant that lets ``agent`` do ``permission`` on ``memory``.

    Raises:
        PermissionDenied: the agent can read the memory but holds no such grant.
    """
    held = grants(ctx, memory, agent, now)
    grant = holding(held, permission)
    if grant is None and may_change(
        memory, ReadScope(org_id=memory.org_id, reader=agent),
        lambda p: holding(held, p) is not None, permission,
    ):
        # The one write rule (core/scope.py): a memory without an owner is the
        # tenant's, changeable by any writer who can see it, over either protocol.
        grant = TENANT
    if grant is None:
        raise PermissionDenied(
            f"Agent {agent!r} lacks `{permission}` permission on memory {memory.uuid}.",
            suggestion="Ask the owner to Share or Delegate that permission, or act as the owner.",
        )
    return grant

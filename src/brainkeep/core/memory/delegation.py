"""Delegate: let another agent act on the delegator's memories, with a depth limit.

* By ``memory_ids``, by ``tags`` (memories carrying any of them), or all the
  owner's memories when neither is given.
* ``max_depth`` (default 1, at most 10) bounds the chain from the owner:
  depth 1 is granted by the owner; a delegate may re-delegate (by memory ids)
  only while its own depth is below its ``max_depth``, and the child inherits
  that limit and the parent's expiry. The Mnemo reference never enforced it.
* The delegator must hold the permission it delegates: the owner holds all,
  a delegate holds what its delegation implies.
* Delegation widens access to ``shared`` memories (and write/delete/share
  rights on any memory it covers); ``private`` stays owner-only for reading.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core.audit import delegation_state_hash
from brainkeep.core.ids import uuid7
from brainkeep.core.memory import access
from brainkeep.core.memory import validation as v
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.models import IMPLIED, PERMISSIONS, Delegation, Grant
from brainkeep.errors import InvalidInput, NotFound, PermissionDenied

DEFAULT_MAX_DEPTH = 1
MAX_DEPTH_LIMIT = 10


@dataclass(frozen=True)
class DelegateInput:
    """A DelegateRequest as plain values."""

    delegator_id: str
    delegate_id: str
    permission: str
    memory_ids: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    max_depth: int | None = None
    expires_in_hours: float | None = None


def _parent_grant(ctx: MnemoContext, uuids: tuple[str, ...], delegator: str, permission: str,
                  now: str) -> tuple[str, Grant | None, list[int]]:
    """Owner of the memories, the grant re-delegation hangs from (None: owner), row ids."""
    owners: set[str] = set()
    parents: set[str | None] = set()
    chosen: Grant | None = None
    ids: list[int] = []
    for uuid in uuids:
        memory = ctx.store.get_memory_by_uuid(uuid)
        if memory is None or memory.source_id != ctx.source_id or not access.is_live(memory, now):
            raise NotFound(f"No memory {uuid}.", field="memory_ids")
        ids.append(memory.id)
        owners.add(memory.agent_id)
        if memory.agent_id == delegator:
            parents.add(None)
            continue
        held = [g for g in access.grants(ctx, memory, delegator, now)
                if g.via == "delegation" and permission in IMPLIED[g.permission]]
        if not held:
            if not access.can_read(ctx, memory, delegator, now):
                raise NotFound(f"No memory {uuid} visible to {delegator!r}.", field="memory_ids")
            raise PermissionDenied(
                f"Agent {delegator!r} does not hold `{permission}` on memory {uuid} "
                "through a delegation, so it cannot delegate it."
            )
        open_grants = [g for g in held if g.depth < g.max_depth]
        if not open_grants:
            raise PermissionDenied(
                f"Delegation depth exhausted: {delegator!r} received memory {uuid} at depth "
                f"{held[0].depth} with max_depth {held[0].max_depth}; re-delegation is not "
                "allowed.",
                suggestion="Ask the owner for a delegation with a larger max_depth.",
            )
        chosen = open_grants[0]
        parents.add(chosen.delegation_id)
    if len(owners) > 1 or len(parents) > 1:
        raise InvalidInput(
            "Delegate memories of one owner, through one grant, per call.",
            field="memory_ids",
        )
    return owners.pop(), chosen, ids


def delegate(ctx: MnemoContext, req: DelegateInput) -> Delegation:
    """Record a delegation (and log it).

    Raises:
        InvalidInput: bad ids, self-delegation, both ids and tags, bad depth/expiry.
        NotFound: a named memory is unknown or invisible to the delegator.
        PermissionDenied: the delegator does not hold the permission, or depth is spent.
    """
    delegator = v.agent_id(req.delegator_id, field="delegator_id", default=None)
    delegate_to = v.agent_id(req.delegate_id, field="delegate_id", default=None)
    if delegator == delegate_to:
        raise InvalidInput("An agent cannot delegate to itself.", field="delegate_id")
    if not req.permission:
        raise InvalidInput("`permission` is required.",
                           suggestion=f"Use one of: {', '.join(PERMISSIONS)}.",
                           field="permission")
    permission = v.choice(req.permission, PERMISSIONS, "permission", "read")
    uuids = v.id_list(req.memory_ids, "memory_ids")
    tags = v.tags(req.tags)
    if uuids and tags:
        raise InvalidInput("Pass `memory_ids` or `tags`, not both.", field="tags")
    if req.max_depth is not None and not 1 <= req.max_depth <= MAX_DEPTH_LIMIT:
        raise InvalidInput(f"`max_depth` must be between 1 and {MAX_DEPTH_LIMIT}.",
                           field="max_depth")
    requested_depth = req.max_depth or DEFAULT_MAX_DEPTH
    requested_expiry = v.expiry(ctx.clock.now(), req.expires_in_hours)

    def work() -> Delegation:
        now = ctx.clock.now_ts()
        max_depth, expires_at = requested_depth, requested_expiry
        owner, parent, ids = delegator, None, list[int]()
        if uuids:
            owner, parent, ids = _parent_grant(ctx, uuids, delegator, permission, now)
        depth = 1
        if parent is not None:
            depth = parent.depth + 1
            max_depth = min(max_depth, parent.max_depth) if req.max_depth else parent.max_depth
            if parent.expires_at and (expires_at is None or parent.expires_at < expires_at):
                expires_at = parent.expires_at
        record = Delegation(
            id=uuid7(), owner=owner, delegator=delegator, delegate=delegate_to,
            permission=permission, selector="ids" if uuids else "tags" if tags else "all",
            depth=depth, max_depth=max_depth,
            parent_id=None if parent is None else parent.delegation_id,
            created_at=now, expires_at=expires_at,
        )
        ctx.store.insert_delegation(record, ids, list(tags))
        ctx.log("delegation.create", "delegation", record.id,
                {"agent_id": delegator, "owner": owner, "delegate": delegate_to,
                 "permission": permission, "selector": record.selector, "memory_ids": list(uuids),
                 "tag_count": len(tags), "depth": depth, "max_depth": max_depth,
                 "parent_id": record.parent_id, "expires_at": expires_at,
                 "delegation_hash": delegation_state_hash(
                     id=record.id, owner=owner, delegator=delegator, delegate=delegate_to,
                     permission=permission, selector=record.selector, depth=depth,
                     max_depth=max_depth, parent_id=record.parent_id, created_at=now,
                     expires_at=expires_at, tags=list(tags))},
                actor=delegator, now=now)
        return record

    return ctx.transact(work)

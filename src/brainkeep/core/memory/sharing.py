"""Share: grant other agents a permission on memories (ACL rows).

Only the owner, or an agent holding an ``admin`` or ``share`` grant, may
share; a non-owner can pass on only what it holds itself. A private memory
becomes ``shared`` (still invisible to MCP remote callers: visibility stays
private). The call is all-or-nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core import events
from brainkeep.core.audit import acl_state_hash
from brainkeep.core.ids import uuid7
from brainkeep.core.limits import MAX_SHARE_GRANTS, MAX_SHARE_TARGETS
from brainkeep.core.memory import access
from brainkeep.core.memory import validation as v
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.models import IMPLIED, PERMISSIONS, ShareOutcome, visibility_for_scope
from brainkeep.errors import InvalidInput, PermissionDenied


@dataclass(frozen=True)
class ShareInput:
    """A ShareRequest as plain values."""

    memory_ids: tuple[str, ...]
    targets: tuple[str, ...]
    permission: str | None = None
    expires_in_hours: float | None = None
    agent_id: str | None = None


def share(ctx: MnemoContext, req: ShareInput) -> ShareOutcome:
    """Grant every target ``permission`` on every memory.

    Raises:
        InvalidInput: no memory or target, bad id, self-share, bad expiry.
        NotFound: a memory is unknown or invisible to the sharer.
        PermissionDenied: the sharer may not share it (or not that permission).
    """
    sharer = v.agent_id(req.agent_id)
    # Every grant is an ACL row and an event written under the one write
    # lock: an unbounded fan-out (100,000 targets held it for 10 s) stalls
    # every other writer, so the call is capped before any id is parsed.
    raw_targets = [t for t in req.targets if t]
    if len(raw_targets) > MAX_SHARE_TARGETS:
        raise InvalidInput(
            f"At most {MAX_SHARE_TARGETS} target agents per Share call "
            f"(got {len(raw_targets)}).",
            suggestion="Split the targets over several calls (docs/limits.md).",
            field="target_agent_ids",
        )
    memory_ids = v.id_list([m for m in req.memory_ids if m], "memory_id")
    targets = tuple(dict.fromkeys(v.agent_id(t, field="target_agent_id")
                                  for t in raw_targets))
    if not memory_ids:
        raise InvalidInput("Pass `memory_id` or `memory_ids`.", field="memory_id")
    if not targets:
        raise InvalidInput("Pass `target_agent_id` or `target_agent_ids`.",
                           field="target_agent_id")
    if len(memory_ids) * len(targets) > MAX_SHARE_GRANTS:
        raise InvalidInput(
            f"{len(memory_ids)} memories x {len(targets)} targets is more than "
            f"{MAX_SHARE_GRANTS} grants per Share call.",
            suggestion="Split the memories or targets over several calls (docs/limits.md).",
            field="target_agent_ids",
        )
    if sharer in targets:
        raise InvalidInput("An agent cannot share with itself.", field="target_agent_id")
    permission = v.choice(req.permission, PERMISSIONS, "permission", "read")
    expires_at = v.expiry(ctx.clock.now(), req.expires_in_hours)

    def work() -> ShareOutcome:
        acl_ids: list[str] = []
        now = ctx.clock.now_ts()
        for uuid in memory_ids:
            memory = access.load(ctx, uuid, sharer, now)
            grant = access.holding(access.grants(ctx, memory, sharer, now), "share")
            if grant is None:
                raise PermissionDenied(
                    f"Only the owner or an admin/share grant holder may share memory {uuid}.",
                    suggestion="Ask the owner to share it, or to grant you `admin`.",
                )
            if grant.via != "owner" and permission not in IMPLIED[grant.permission]:
                raise PermissionDenied(
                    f"Agent {sharer!r} holds `{grant.permission}` on {uuid} and cannot grant "
                    f"`{permission}`.",
                )
            if memory.scope == "private":
                # by_grant: shared only while one of its ACLs is live (core/scope.py).
                ctx.store.set_memory_scope(memory.id, "shared", visibility_for_scope("shared"),
                                          now, by_grant=True)
                ctx.store.append_event(
                    events.memory_scope(memory, actor=sharer, scope_after="shared",
                                        after=ctx.store.get_memory(memory.id) or memory), now)
            for target in targets:
                acl_id = ctx.store.upsert_acl(
                    acl_id=uuid7(), memory_id=memory.id, grantee=target, permission=permission,
                    granted_by=sharer, now=now, expires_at=expires_at,
                )
                ctx.log("acl.grant", "acl", acl_id,
                        {"memory_id": uuid, "grantee": target, "permission": permission,
                         "expires_at": expires_at, "agent_id": sharer,
                         "thread_id": memory.thread_id,
                         "acl_hash": acl_state_hash(
                             id=acl_id, memory_uuid=uuid, grantee=target, permission=permission,
                             granted_by=sharer, created_at=now, expires_at=expires_at)},
                        actor=sharer, now=now)
                acl_ids.append(acl_id)
        return ShareOutcome(tuple(acl_ids), memory_ids, targets, permission)

    return ctx.transact(work)

"""Catalog declaration of grant revocation (the `full` surface, admin scope).

``revoke_grant`` and the CLI's ``share revoke`` / ``delegation revoke`` call
the one core function, ``core/memory/revocation.py`` ``revoke``; the record
shapes below are shared with the CLI's ``list`` commands.
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.memory import revocation
from brainkeep.core.memory.models import Acl, Delegation
from brainkeep.ops.catalog import Operation, Param
from brainkeep.ops.context import OpContext


def acl_view(acl: Acl, now: str) -> dict[str, Any]:
    """One ACL as data (``share list``)."""
    return {
        "id": acl.id, "memory_id": acl.memory_uuid, "owner": acl.owner, "grantee": acl.grantee,
        "permission": acl.permission, "granted_by": acl.granted_by,
        "created_at": acl.created_at, "expires_at": acl.expires_at, "status": acl.status(now),
    }


def delegation_view(d: Delegation, now: str) -> dict[str, Any]:
    """One delegation as data (``delegation list``)."""
    return {
        "id": d.id, "owner": d.owner, "delegator": d.delegator, "delegate": d.delegate,
        "permission": d.permission, "selector": d.selector, "tags": list(d.tags),
        "depth": d.depth, "max_depth": d.max_depth, "parent_id": d.parent_id,
        "created_at": d.created_at, "expires_at": d.expires_at, "status": d.status(now),
    }


def revocation_view(done: revocation.Revocation) -> dict[str, Any]:
    """A revoke call's answer (MCP op and CLI --json alike)."""
    return {
        "kind": done.kind, "id": done.id, "status": "revoked",
        "revoked": list(done.revoked), "revoked_at": done.revoked_at,
    }


def _revoke_grant(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    done = revocation.revoke(ctx.brain.mnemo.ctx, str(p["kind"]), str(p["id"]),
                             actor=ctx.caller.client_id, scope=ctx.caller.read_scope)
    return revocation_view(done)


GRANT_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "revoke_grant",
        "Revoke a gRPC Share (kind `acl`) or Delegate (kind `delegation`) grant now: the "
        "grantee's next Recall or read no longer returns what it covered; a delegation's "
        "re-delegations are revoked with it. Audited (acl.revoke / delegation.revoke).",
        (
            Param("kind", "string", "What to revoke: acl (a Share) or delegation (a Delegate).",
                  required=True, enum=revocation.KINDS),
            Param("id", "string", "The ACL id (Share's acl_ids) or delegation id "
                  "(`brainkeep share list` / `delegation list` show them).", required=True),
        ),
        "admin",
        _revoke_grant,
    ),
)

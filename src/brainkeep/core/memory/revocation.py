"""Revoke a Share (ACL) or a Delegate (delegation), and list them for operators.

One function serves every surface (``brainkeep share revoke``,
``brainkeep delegation revoke``, the MCP admin op ``revoke_grant``):

* revocation is immediate: the grant's row is removed inside one write
  transaction, together with its event, so every read path
  (``store/sql/scope.py``, the by-id rule in ``access.py``) stops
  honouring it from the next call on; the row's history stays in the log
  (``acl.grant`` / ``delegation.create``, then ``acl.revoke`` /
  ``delegation.revoke``), and ``verify`` flags a revoked row put back;
* a revoked delegation takes its re-delegations (children, grandchildren,
  ...) along: each is removed and gets its own ``delegation.revoke`` event
  naming the ancestor in ``cascaded_from``, so no child outlives its parent;
* a memory Share turned from private into shared reads as private again once
  its last live ACL is revoked (``core/scope.py`` ``shares_live``);
* an unknown id (or one already revoked), or an ACL of another tenant for a
  remote caller, is ``not_found``.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core import events
from brainkeep.core.ids import is_uuid
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.memory.models import Acl, Delegation
from brainkeep.core.scope import ReadScope
from brainkeep.errors import InvalidInput, NotFound

KINDS = ("acl", "delegation")


@dataclass(frozen=True)
class Revocation:
    """What one revoke call did.

    Attributes:
        kind: ``acl`` or ``delegation``.
        id: The grant named by the caller.
        revoked: Ids revoked by this call (a delegation: itself, then its
            re-delegations, parents before children).
        revoked_at: When.
    """

    kind: str
    id: str
    revoked: tuple[str, ...]
    revoked_at: str


def _grant_id(kind: str, grant_id: str) -> str:
    if kind not in KINDS:
        raise InvalidInput(f"`kind` must be one of: {', '.join(KINDS)} (got {kind!r}).",
                           suggestion="Pass kind `acl` (a Share) or `delegation` (a Delegate).",
                           field="kind")
    text = (grant_id or "").strip()
    if not is_uuid(text):
        raise InvalidInput(
            f"`id` {text[:40]!r} is not a grant id (a UUID).",
            suggestion=f"List them with `brainkeep {'share' if kind == 'acl' else 'delegation'} "
            "list` (the ACL ids are also in Share's `acl_ids`, a delegation's in Delegate's "
            "reply).",
            field="id",
        )
    return text.lower()


def _acl(ctx: MnemoContext, acl_id: str, scope: ReadScope) -> Acl:
    found = ctx.store.list_acls(acl_id=acl_id)
    acl = found[0] if found else None
    if acl is not None and not scope.trusted:
        memory = ctx.store.get_memory(acl.memory_id)
        # A tenant's admin revokes its own tenant's grants; another's look unknown.
        if memory is None or memory.org_id != scope.org_id:
            acl = None
    if acl is None:
        raise NotFound(f"No ACL {acl_id} (unknown, or already revoked).",
                       suggestion="List live ACLs with `brainkeep share list`.", field="id")
    return acl


def _delegations(ctx: MnemoContext, delegation_id: str) -> list[Delegation]:
    """The delegation and its re-delegations, parents first."""
    records: list[Delegation] = []
    for did in ctx.store.delegation_tree(delegation_id):
        records.extend(ctx.store.list_delegations(delegation_id=did))
    if not records:
        raise NotFound(f"No delegation {delegation_id} (unknown, or already revoked).",
                       suggestion="List live delegations with `brainkeep delegation list`.",
                       field="id")
    return records


def revoke(ctx: MnemoContext, kind: str, grant_id: str, *, actor: str,
           scope: ReadScope) -> Revocation:
    """Revoke the ACL or delegation ``grant_id`` now, and log it.

    Args:
        ctx: The Mnemo services' dependencies.
        kind: ``acl`` (a Share grant) or ``delegation`` (a Delegate grant).
        grant_id: The ACL or delegation id.
        actor: Who revokes (the events' actor and ``agent_id``).
        scope: The caller as a reader: a remote caller reaches its tenant's ACLs only.

    Returns:
        The ids revoked (a delegation's re-delegations after it).

    Raises:
        InvalidInput: unknown kind, or an id that is not a UUID.
        NotFound: no such grant (already revoked, or another tenant's ACL for a
            remote caller).
    """
    gid = _grant_id(kind, grant_id)

    def work() -> Revocation:
        now = ctx.clock.now_ts()
        if kind == "acl":
            acl = _acl(ctx, gid, scope)
            ctx.store.delete_acl(gid)
            ctx.store.append_event(events.acl_revoke(acl, actor=actor, source_id=ctx.source_id),
                                   now)
            return Revocation(kind, gid, (gid,), now)
        records = _delegations(ctx, gid)
        ctx.store.delete_delegations([d.id for d in records])
        for record in records:
            ctx.store.append_event(events.delegation_revoke(
                record, actor=actor, source_id=ctx.source_id,
                cascaded_from=None if record.id == gid else gid), now)
        return Revocation(kind, gid, tuple(d.id for d in records), now)

    return ctx.transact(work)


def list_acls(ctx: MnemoContext, *, memory_id: str | None = None, grantee: str | None = None,
              include_inactive: bool = False) -> list[Acl]:
    """Live ACLs, newest first; expired ones too with ``include_inactive``."""
    now = ctx.clock.now_ts()
    rows = ctx.store.list_acls(memory_uuid=memory_id.lower() if memory_id else None,
                                     grantee=grantee)
    return [a for a in rows if include_inactive or a.status(now) == "active"]


def list_delegations(ctx: MnemoContext, *, owner: str | None = None,
                     delegate: str | None = None,
                     include_inactive: bool = False) -> list[Delegation]:
    """Live delegations, newest first; expired ones too with ``include_inactive``."""
    now = ctx.clock.now_ts()
    rows = ctx.store.list_delegations(owner=owner, delegate=delegate)
    return [d for d in rows if include_inactive or d.status(now) == "active"]

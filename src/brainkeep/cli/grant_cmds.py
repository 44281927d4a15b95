"""`brainkeep share list|revoke` and `brainkeep delegation list|revoke`: gRPC grants.

Share (ACLs) and Delegate (delegations) are granted over gRPC; operators find
and revoke them here. Revocation calls the one core function the MCP admin op
``revoke_grant`` calls too (core/memory/revocation.py).
"""

from __future__ import annotations

import click

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.core.memory import revocation
from brainkeep.ops.grant_ops import acl_view, delegation_view, revocation_view

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


def _revoke(cli: CliContext, kind: str, grant_id: str) -> None:
    brain = cli.brain()
    done = revocation.revoke(brain.mnemo.ctx, kind, grant_id, actor=cli.caller.client_id,
                             scope=cli.caller.read_scope)
    data = revocation_view(done)
    label = "ACL" if kind == "acl" else "delegation"
    if len(done.revoked) > 1:
        human = (f"{label} {done.id} revoked, with {len(done.revoked) - 1} re-delegation(s): "
                 + ", ".join(done.revoked[1:]))
    else:
        human = f"{label} {done.id} revoked"
    emit(cli, data, human)


@click.group()
def share() -> None:
    """ACLs written by gRPC Share: list them, revoke one.

    A memory Share turned from private into shared reads as private again
    (owner only) once none of its ACLs is live.
    """


@share.command("list")
@click.option("--memory", "memory_id", help="Only ACLs on this memory id (UUID).")
@click.option("--grantee", help="Only ACLs granted to this agent id.")
@click.option("--all", "include_inactive", is_flag=True, help="Include expired ACLs.")
@json_option
@pass_cli
def share_list(cli: CliContext, memory_id: str | None, grantee: str | None,
               include_inactive: bool) -> None:
    """List live ACLs (id, memory, grantee, permission, expiry), newest first.

    A revoked ACL is gone from this list; the audit log keeps its grant and
    revoke events.
    """
    brain = cli.brain()
    now = brain.clock.now_ts()
    rows = [acl_view(a, now) for a in revocation.list_acls(
        brain.mnemo.ctx, memory_id=memory_id, grantee=grantee,
        include_inactive=include_inactive)]

    def human() -> None:
        if not rows:
            click.echo("no live ACLs (add --all to include expired ones)")
            return
        for row in rows:
            click.echo(f"{row['id']}  {row['status']:<7} memory {row['memory_id']}  "
                       f"{row['owner'] or '-'} -> {row['grantee']} ({row['permission']})  "
                       f"expires {row['expires_at'] or 'never'}")

    emit(cli, rows, human)


@share.command("revoke")
@click.argument("acl_id")
@json_option
@pass_cli
def share_revoke(cli: CliContext, acl_id: str) -> None:
    """Revoke the ACL ACL_ID now; the grantee's next Recall no longer returns the memory."""
    _revoke(cli, "acl", acl_id)


@click.group()
def delegation() -> None:
    """Delegations written by gRPC Delegate: list them, revoke one (and its re-delegations)."""


@delegation.command("list")
@click.option("--owner", help="Only delegations of this owner's memories.")
@click.option("--delegate", "delegate_id", help="Only delegations to this agent id.")
@click.option("--all", "include_inactive", is_flag=True,
              help="Include expired delegations.")
@json_option
@pass_cli
def delegation_list(cli: CliContext, owner: str | None, delegate_id: str | None,
                    include_inactive: bool) -> None:
    """List live delegations (id, owner, delegate, permission, selector, depth, parent)."""
    brain = cli.brain()
    now = brain.clock.now_ts()
    rows = [delegation_view(d, now) for d in revocation.list_delegations(
        brain.mnemo.ctx, owner=owner, delegate=delegate_id, include_inactive=include_inactive)]

    def human() -> None:
        if not rows:
            click.echo("no live delegations (add --all to include expired ones)")
            return
        for row in rows:
            parent = f" parent {row['parent_id']}" if row["parent_id"] else ""
            click.echo(f"{row['id']}  {row['status']:<7} {row['owner']} -> {row['delegate']} "
                       f"({row['permission']}, {row['selector']}, depth {row['depth']}/"
                       f"{row['max_depth']}){parent}  expires {row['expires_at'] or 'never'}")

    emit(cli, rows, human)


@delegation.command("revoke")
@click.argument("delegation_id")
@json_option
@pass_cli
def delegation_revoke(cli: CliContext, delegation_id: str) -> None:
    """Revoke DELEGATION_ID now, and every re-delegation made from it."""
    _revoke(cli, "delegation", delegation_id)

"""`brainkeep token create|list|revoke`: bearer tokens for `serve --http`."""

from __future__ import annotations

import click

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.core.tokens import TokenService

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


def _service(cli: CliContext) -> TokenService:
    brain = cli.brain()
    return TokenService(brain.store, brain.clock)


@click.group()
def token() -> None:
    """Bearer tokens for remote agents (MCP over HTTP).

    Scopes: read (recall, entity, synthesize, context_pack, delta, page reads),
    write (remember, forget, page writes; implies read), admin (everything).
    Only a hash of each secret is stored.
    """


@token.command("create")
@click.option("--name", required=True, help="Unique name (shows in usage stats and audit).")
@click.option(
    "--scopes",
    default="read",
    show_default=True,
    help="Comma-separated: read, write, admin.",
)
@click.option("--expires", help='Lifetime ("30d", "12h", "45m") or an ISO 8601 time.')
@click.option(
    "--org",
    "org_id",
    help="Bind the token to this tenant: its requests read and write memories of ORG "
    "only (default: the no-org tenant). Same rule as gRPC org ids.",
)
@click.option(
    "--agent",
    "agent_id",
    help="Bind the token to this agent id: it writes as AGENT and reads what AGENT may "
    "(its private and shared memories), as a gRPC caller with that agent_id would.",
)
@json_option
@pass_cli
def create(
    cli: CliContext,
    name: str,
    scopes: str,
    expires: str | None,
    org_id: str | None,
    agent_id: str | None,
) -> None:
    """Create a token and print its secret ONCE (it cannot be shown again)."""
    service = _service(cli)
    created = service.create(name, scopes, expires=expires, org_id=org_id, agent_id=agent_id)
    now = cli.brain().clock.now_ts()
    data = {**created.token.public(now), "secret": created.secret}

    def human() -> None:
        token_ = created.token
        click.echo(created.secret)
        click.echo(
            f"token {token_.name!r} created: scopes {','.join(token_.scopes)}, "
            f"expires {token_.expires_at or 'never'}, org {token_.org_id or '-'}, "
            f"agent {token_.agent_id or '-'}",
            err=True,
        )
        click.echo(
            "Store the secret now: only its hash is kept. Clients send it as "
            "`Authorization: Bearer <secret>`.",
            err=True,
        )

    emit(cli, data, human)


@token.command("list")
@click.option("--all", "include_revoked", is_flag=True, help="Include revoked tokens.")
@json_option
@pass_cli
def list_(cli: CliContext, include_revoked: bool) -> None:
    """List tokens (names, scopes, org, agent, expiry, status; never secrets)."""
    service = _service(cli)
    now = cli.brain().clock.now_ts()
    rows = [t.public(now) for t in service.list_tokens(include_revoked=include_revoked)]

    def human() -> None:
        if not rows:
            click.echo("no tokens (create one: brainkeep token create --name NAME --scopes read)")
            return
        for row in rows:
            click.echo(
                f"{row['name']:<24} {','.join(row['scopes']):<18} {row['status']:<8} "
                f"org {row['org_id'] or '-':<16} agent {row['agent_id'] or '-':<16} "
                f"expires {row['expires_at'] or 'never'}"
            )

    emit(cli, rows, human)


@token.command("revoke")
@click.argument("name")
@json_option
@pass_cli
def revoke(cli: CliContext, name: str) -> None:
    """Revoke the token NAME; a running server refuses it from the next request."""
    revoked = _service(cli).revoke(name)
    now = cli.brain().clock.now_ts()
    emit(cli, revoked.public(now), f"token {revoked.name!r} revoked")

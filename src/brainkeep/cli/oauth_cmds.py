"""`brainkeep oauth clients list|add|remove` and `brainkeep admin set-password`."""

from __future__ import annotations

import click

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.core.oauth.password import set_admin_password
from brainkeep.core.oauth.service import OAuthService

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


def _service(cli: CliContext) -> OAuthService:
    brain = cli.brain()
    return OAuthService(brain.store, brain.clock)


@click.group()
def oauth() -> None:
    """OAuth 2.1 for `serve --http` (ChatGPT, Claude Desktop/claude.ai, Perplexity...)."""


@oauth.group()
def clients() -> None:
    """Registered OAuth clients (secrets are stored hashed and shown once)."""


@clients.command("list")
@click.option("--all", "include_revoked", is_flag=True, help="Include removed clients.")
@json_option
@pass_cli
def list_(cli: CliContext, include_revoked: bool) -> None:
    """List OAuth clients."""
    rows = [c.public() for c in _service(cli).list_clients(include_revoked=include_revoked)]

    def human() -> None:
        if not rows:
            click.echo("no OAuth clients (add one with `brainkeep oauth clients add`)")
        for row in rows:
            state = "removed" if row["revoked_at"] else "live"
            click.echo(f"{row['client_id']}  {row['name']}  {','.join(row['scopes'])}  "
                       f"{','.join(row['grant_types'])}  {state}")

    emit(cli, {"clients": rows}, human)


@clients.command("add")
@click.option("--name", required=True, help="Shown on the consent page and in usage stats.")
@click.option("--redirect-uri", "redirect_uris", multiple=True,
              help="Allowed redirect URI (repeatable; needed for authorization code).")
@click.option("--scopes", default="read,write", show_default=True,
              help="Comma-separated: read, write, admin.")
@click.option("--machine", is_flag=True,
              help="A machine client: client_credentials grant only (no browser).")
@click.option("--public", "public", is_flag=True,
              help="A public client (no secret; PKCE only), e.g. a desktop app.")
@click.option("--org", "org_id", help="Bind every token of this client to this tenant.")
@click.option("--agent", "agent_id", help="Bind every token of this client to this agent id.")
@json_option
@pass_cli
def add(cli: CliContext, name: str, redirect_uris: tuple[str, ...], scopes: str, machine: bool,
        public: bool, org_id: str | None, agent_id: str | None) -> None:
    """Register a client and print its secret ONCE."""
    grants = ("client_credentials",) if machine else ("authorization_code", "refresh_token")
    created = _service(cli).add_client(
        name, redirect_uris=redirect_uris, grant_types=grants, scopes=scopes,
        confidential=not public, org_id=org_id, agent_id=agent_id)
    data = {**created.client.public(), "client_secret": created.secret}

    def human() -> None:
        click.echo(f"client_id {created.client.client_id}")
        if created.secret:
            click.echo(f"client_secret {created.secret}")
            click.echo("Store the secret now: only its hash is kept.", err=True)

    emit(cli, data, human)


@clients.command("remove")
@click.argument("client_id")
@json_option
@pass_cli
def remove(cli: CliContext, client_id: str) -> None:
    """Remove a client and revoke every token it holds."""
    removed = _service(cli).remove_client(client_id)
    emit(cli, removed.public(), f"removed {removed.client_id} ({removed.name})")


@click.group()
def admin() -> None:
    """Operator settings of this brain."""


@admin.command("set-password")
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True,
              help="The consent-page password (prompted when omitted).")
@json_option
@pass_cli
def set_password(cli: CliContext, password: str) -> None:
    """Set the password the operator types on the OAuth consent page (stored hashed)."""
    set_admin_password(cli.brain().store, password)
    emit(cli, {"ok": True}, "consent-page password set")

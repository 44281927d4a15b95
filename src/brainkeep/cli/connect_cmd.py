"""`brainkeep connect [URL] [--token T | --oauth] [--install HOST] [--dry-run] [--print]`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import httpx2

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.connect import HOSTS, Target, apply, blocks, plan
from brainkeep.errors import InvalidInput, PermissionDenied, Unavailable

pass_cli = click.make_pass_decorator(CliContext, ensure=True)
TIMEOUT_S = 10.0


def _check_remote(url: str, token: str | None, oauth: bool) -> dict[str, Any]:
    """``/health``, then an authenticated ``tools/list`` (or, for OAuth, discovery)."""
    base = url.rsplit("/mcp", 1)[0].rstrip("/")
    try:
        health = httpx2.get(f"{base}/health", timeout=TIMEOUT_S).json()
        if oauth:
            meta = httpx2.get(f"{base}/.well-known/oauth-protected-resource/mcp",
                              timeout=TIMEOUT_S)
            return {"health": health, "oauth": meta.status_code == 200}
        response = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                               headers={"Authorization": f"Bearer {token}",
                                        "Accept": "application/json, text/event-stream"},
                               timeout=TIMEOUT_S)
    except (httpx2.HTTPError, ValueError) as exc:
        raise Unavailable(f"Cannot reach {url}.", suggestion="Check the URL and that "
                             "`brainkeep serve --http` runs there.", detail=str(exc)) from exc
    if response.status_code != 200:
        # The server answered: a refusal is "not allowed" (exit 4), not our bug.
        raise PermissionDenied(f"{url} refused the token (HTTP {response.status_code}).",
                             suggestion="Check --token (`brainkeep token list` on the server).")
    tools = response.json().get("result", {}).get("tools", [])
    return {"health": health, "tools": len(tools)}


def _check_local(cli: CliContext) -> dict[str, Any]:
    """This machine's brain opens (hosts will launch `brainkeep serve` on it)."""
    brain = cli.brain()
    return {"home": str(cli.settings.home), "engine": brain.store.engine_name}


@click.command()
@click.argument("url", required=False)
@click.option("--token", help="Bearer token for a remote brain (sent as a header).")
@click.option("--oauth", is_flag=True, help="Remote brain through OAuth (the host logs in).")
@click.option("--install", "hosts", multiple=True, type=click.Choice(HOSTS),
              help="Write this host's MCP configuration (repeatable).")
@click.option("--dry-run", is_flag=True, help="Show the change; write nothing.")
@click.option("--print", "print_", is_flag=True, help="Print the JSON blocks for any host.")
@json_option
@pass_cli
def connect(cli: CliContext, url: str | None, token: str | None, oauth: bool,
            hosts: tuple[str, ...], dry_run: bool, print_: bool) -> None:
    """Check a brain and configure MCP hosts for it (no URL: this machine's brain, stdio)."""
    if url and not (token or oauth):
        raise InvalidInput("A remote brain needs --token T or --oauth.", field="token")
    if token and oauth:
        raise InvalidInput("Pass --token or --oauth, not both.", field="token")
    target = Target(url=url, token=token if url else None)
    if print_:
        emit(cli, blocks(target), json.dumps(blocks(target), indent=2))
        return
    check = _check_remote(url, token, oauth) if url else _check_local(cli)
    home = Path.home()
    changes = []
    for host in hosts:
        change = plan(host, target, home)
        backup = None if dry_run else apply(change)
        changes.append({"host": host, "path": str(change.path), "changed": change.changed,
                        "backup": str(backup) if backup else None,
                        **({"after": change.after} if dry_run else {})})

    def human() -> None:
        click.echo(f"ok: {json.dumps(check)}")
        for item in changes:
            verb = "would write" if dry_run else "wrote"
            state = f"{verb} {item['path']}" if item["changed"] else f"{item['path']} unchanged"
            click.echo(f"{item['host']}: {state}")
            if dry_run and item["changed"]:
                click.echo(item["after"])

    emit(cli, {"ok": True, "check": check, "dry_run": dry_run, "changes": changes}, human)

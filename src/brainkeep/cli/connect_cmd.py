"""`brainkeep connect [URL] [--token T | --oauth] [--install HOST [--hooks]] [--uninstall HOST]`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import click
import httpx2

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.connect import (
    HOSTS,
    Change,
    Target,
    apply,
    blocks,
    launcher,
    local_target,
    plan,
    plan_removal,
    write_private,
)
from brainkeep.connect_hooks import HOOK_HOSTS, plan_hooks, plan_hooks_removal
from brainkeep.errors import InvalidInput, PermissionDenied, Unavailable

pass_cli = click.make_pass_decorator(CliContext, ensure=True)
TIMEOUT_S = 10.0
PROOF_TIMEOUT_S = 60.0


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


def prove(target: Target) -> dict[str, Any]:
    """Start the entry's exact command once, as the host will, and ask it for its tools.

    Raises:
        Unavailable: the command does not start or does not answer MCP.
    """
    server = target.stdio()
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "brainkeep-connect", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    env = {**os.environ, **server.get("env", {})}
    command = [server["command"], *server["args"]]
    try:
        done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env,
                              timeout=PROOF_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"The host could not start `{' '.join(command)}`.",
                          suggestion="Reinstall brainkeep or check the path.",
                          detail=str(exc)) from exc
    for raw in done.stdout.splitlines():
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if message.get("id") == 2 and "result" in message:
            return {"command": command, "tools": len(message["result"].get("tools", []))}
    raise Unavailable(f"`{' '.join(command)}` started but did not answer tools/list.",
                      suggestion="Run it by hand to see why.", detail=done.stderr[-500:])


def _token_file(brain_home: Path, token: str) -> Path:
    """The remote token for hook commands: a 0600 file, never a command-line argument."""
    path = brain_home / "hooks" / "remote-token"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_private(path, token + "\n", secret=True)
    return path


def _row(change: Change, dry_run: bool, backup: Path | None, kind: str) -> dict[str, Any]:
    return {"host": change.host, "kind": kind, "path": str(change.path),
            "changed": change.changed, "backup": str(backup) if backup else None,
            **({"after": change.after} if dry_run else {})}


@click.command()
@click.argument("url", required=False)
@click.option("--token", help="Bearer token for a remote brain (sent as a header).")
@click.option("--oauth", is_flag=True, help="Remote brain through OAuth (the host logs in).")
@click.option("--install", "hosts", multiple=True, type=click.Choice(HOSTS),
              help="Write this host's MCP configuration (repeatable).")
@click.option("--hooks", is_flag=True,
              help="With --install claude-code/codex: also write the lifecycle hooks.")
@click.option("--uninstall", "removals", multiple=True, type=click.Choice(HOSTS),
              help="Remove what --install (and --hooks) wrote for this host (repeatable).")
@click.option("--dry-run", is_flag=True, help="Show the change; write nothing.")
@click.option("--print", "print_", is_flag=True, help="Print the JSON blocks for any host.")
@json_option
@pass_cli
def connect(cli: CliContext, url: str | None, token: str | None, oauth: bool,
            hosts: tuple[str, ...], hooks: bool, removals: tuple[str, ...], dry_run: bool,
            print_: bool) -> None:
    """Check a brain and configure MCP hosts for it (no URL: this machine's brain, stdio)."""
    if url and not (token or oauth):
        raise InvalidInput("A remote brain needs --token T or --oauth.", field="token")
    if token and oauth:
        raise InvalidInput("Pass --token or --oauth, not both.", field="token")
    if hooks and not set(hosts) & set(HOOK_HOSTS):
        raise InvalidInput("--hooks needs --install claude-code or --install codex.",
                           field="hooks")
    home = Path.home()
    if url:
        command = launcher()
        target = Target(url=url, token=token, command=command[0], brain_args=command[1:])
    else:
        target = local_target(cli.settings.home,
                              os.environ.get("BRAINKEEP_DATABASE_URL") or None)
    if print_:
        emit(cli, blocks(target), json.dumps(blocks(target), indent=2))
        return
    check: dict[str, Any] = {}
    if hosts or not removals:
        check = _check_remote(url, token, oauth) if url else _check_local(cli)
        if hosts and not url and not dry_run:
            check["proof"] = prove(target)
    changes = []
    for host in hosts:
        change = plan(host, target, home)
        changes.append(_row(change, dry_run, None if dry_run else apply(change), "mcp"))
        if hooks and host in HOOK_HOSTS:
            token_path = None
            if url and token:
                token_path = cli.settings.home / "hooks" / "remote-token"
                if not dry_run:
                    _token_file(cli.settings.home, token)
            hook_change = plan_hooks(host, target, home, cli.settings.home, token_path)
            changes.append(_row(hook_change, dry_run,
                                None if dry_run else apply(hook_change), "hooks"))
    for host in removals:
        for kind, change in (("mcp", plan_removal(host, home)),
                             *((("hooks", plan_hooks_removal(host, home)),)
                               if host in HOOK_HOSTS else ())):
            changes.append(_row(change, dry_run, None if dry_run else apply(change), kind))

    def human() -> None:
        if check:
            click.echo(f"ok: {json.dumps(check)}")
        for item in changes:
            verb = "would write" if dry_run else "wrote"
            state = f"{verb} {item['path']}" if item["changed"] else f"{item['path']} unchanged"
            click.echo(f"{item['host']} ({item['kind']}): {state}")
            if dry_run and item["changed"]:
                click.echo(item["after"])

    emit(cli, {"ok": True, "check": check, "dry_run": dry_run, "changes": changes}, human)

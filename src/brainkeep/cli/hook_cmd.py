"""`brainkeep hook HOST EVENT`: the click face of the hooks front (help, and `--home X hook`).

The console script runs `brainkeep hook ...` without click (``brainkeep.entry``);
this command is what `--help` shows and what runs when options precede
`hook`. Both call ``brainkeep.hooks.entry.run``.
"""

from __future__ import annotations

import os
import sys

import click

from brainkeep.cli.app import CliContext
from brainkeep.hooks.entry import run

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("host", type=click.Choice(["claude-code", "codex", "generic"]))
@click.argument("event")
@click.argument("payload", required=False)
@click.option("--url", help="A remote brain (`serve --http` URL ending in /mcp).")
@click.option("--token-file", type=click.Path(dir_okay=False),
              help="File holding the remote brain's bearer token (or $BRAINKEEP_HOOK_TOKEN).")
@pass_cli
def hook(cli: CliContext, host: str, event: str, payload: str | None, url: str | None,
         token_file: str | None) -> None:
    """Answer an agent harness's lifecycle hook (stdin JSON in; never fails the host).

    \b
    claude-code: session-start, user-prompt, pre-compact, stop, session-end
    codex:       session-start, user-prompt, pre-compact, stop, notify
    generic:     session-start, user-prompt, bank (plain JSON in, {"context": ...} out)

    session-start prints a digest (standing entities, changes since the last
    session here); user-prompt prints memories relevant to the prompt, or
    nothing; pre-compact, stop and session-end bank the transcript's new
    turns. Every failure exits 0 with no output and a line in
    <home>/hooks/heartbeat.jsonl. BRAINKEEP_HOOKS=0 turns hooks off.
    See docs/agents.md.
    """
    argv = [host, event, *([payload] if payload else [])]
    if cli.home is not None:
        argv += ["--home", str(cli.home)]
    if url:
        argv += ["--url", url]
    if token_file:
        argv += ["--token-file", token_file]
    raise SystemExit(run(argv, stdin=sys.stdin.buffer, stdout=sys.stdout, env=os.environ))

"""The `brainkeep` entry point: the root group and its commands."""

from __future__ import annotations

from pathlib import Path

import click

from brainkeep import __version__
from brainkeep.cli import (
    admin_cmds,
    embed_cmd,
    migrate_cmd,
    page_cmds,
    protocol_cmds,
    serve_cmd,
    verb_cmds,
    verify_cmd,
)
from brainkeep.cli.app import BrainkeepGroup, CliContext
from brainkeep.cli.connect_cmd import connect as connect_cmd
from brainkeep.cli.grant_cmds import delegation as delegation_group
from brainkeep.cli.grant_cmds import share as share_group
from brainkeep.cli.oauth_cmds import admin as admin_group
from brainkeep.cli.oauth_cmds import oauth as oauth_group
from brainkeep.cli.token_cmds import token as token_group
from brainkeep.core.mnemo import validation


@click.group(cls=BrainkeepGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="BRAINKEEP_HOME",
    help="Brain folder (default: $BRAINKEEP_HOME or ~/.brainkeep).",
)
@click.option(
    "--org",
    "org_id",
    envvar="BRAINKEEP_ORG",
    help="Tenant the memory commands (remember, recall, forget, ...) act in "
    "(default: $BRAINKEEP_ORG, else the no-org tenant where MCP facts live).",
)
@click.version_option(__version__, prog_name="brainkeep")
@click.pass_context
def cli(ctx: click.Context, home: Path | None, org_id: str | None) -> None:
    """brainkeep — a memory server for AI agents, on one local brain.

    Remember facts with provenance, recall them later, look up people and
    projects as pages, and forget on request.
    """
    state = ctx.ensure_object(CliContext)
    state.home = home
    # Checked here, once, so a bad --org fails before any command runs (exit 2).
    state.org_id = validation.org_id(org_id)


for command in (
    admin_cmds.init,
    page_cmds.put,
    page_cmds.get,
    page_cmds.list_,
    page_cmds.delete,
    page_cmds.import_,
    page_cmds.export,
    verify_cmd.verify,
    admin_cmds.doctor,
    admin_cmds.config,
    serve_cmd.serve,
    protocol_cmds.protocol,
):
    cli.add_command(command)
for command in verb_cmds.verb_commands():
    cli.add_command(command)
cli.add_command(token_group)
cli.add_command(oauth_group)
cli.add_command(connect_cmd)
cli.add_command(admin_group)
cli.add_command(share_group)
cli.add_command(delegation_group)
cli.add_command(embed_cmd.embed)
cli.add_command(migrate_cmd.migrate_)


def main() -> None:
    cli(prog_name="brainkeep")

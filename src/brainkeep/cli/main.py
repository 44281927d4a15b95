"""The `brainkeep` entry point: the root group and its commands."""

from __future__ import annotations

from pathlib import Path

import click

from brainkeep import __version__
from brainkeep.cli.app import BrainkeepGroup, CliContext
from brainkeep.cli.lazy import LazyCommand

# Every subcommand: name -> where it lives and its one-line summary (the
# summary is what `brainkeep --help` lists without importing the command;
# tests/cli/test_help.py checks it equals the command's own short help).
# Register a command by adding one line here.
COMMANDS: dict[str, LazyCommand] = {
    "admin": LazyCommand("brainkeep.cli.oauth_cmds:admin", "Operator settings of this brain."),
    "config": LazyCommand("brainkeep.cli.admin_cmds:config",
                          "Read and write the brain's config file."),
    "connect": LazyCommand("brainkeep.cli.connect_cmd:connect",
                           "Check a brain and configure MCP hosts for it (no URL: this "
                           "machine's brain, stdio)."),
    "context-pack": LazyCommand("brainkeep.cli.verb_cmds:verb_command",
                                "context_pack (boundary bundle)"),
    "delegation": LazyCommand("brainkeep.cli.grant_cmds:delegation",
                              "Delegations written by gRPC Delegate: list them, revoke one "
                              "(and its re-delegations)."),
    "delete": LazyCommand("brainkeep.cli.page_cmds:delete",
                          "Soft-delete page SLUG (history is kept)."),
    "delta": LazyCommand("brainkeep.cli.verb_cmds:verb_command", "delta (what changed since)"),
    "doctor": LazyCommand("brainkeep.cli.admin_cmds:doctor",
                          "Show engine, server, pool, cache, migrations, counts, chain status "
                          "and database size."),
    "embed": LazyCommand("brainkeep.cli.embed_cmd:embed",
                         "Embed every page chunk and fact that has no vector yet; safe to "
                         "interrupt and re-run."),
    "entity": LazyCommand("brainkeep.cli.verb_cmds:verb_command",
                          "entity (card lookup, zero LLM)"),
    "export": LazyCommand("brainkeep.cli.page_cmds:export",
                          "Write every page to DIRECTORY/<slug>.md with its frontmatter."),
    "forget": LazyCommand("brainkeep.cli.verb_cmds:verb_command", "forget (expire a fact)"),
    "get": LazyCommand("brainkeep.cli.page_cmds:get",
                       "Print page SLUG (its markdown, or its record with --json)."),
    "hook": LazyCommand("brainkeep.cli.hook_cmd:hook",
                        "Answer an agent harness's lifecycle hook (stdin JSON in; never fails "
                        "the host)."),
    "import": LazyCommand("brainkeep.cli.page_cmds:import_",
                          "Load every .md file under DIRECTORY (slug = relative path); re-runs "
                          "skip unchanged files."),
    "init": LazyCommand("brainkeep.cli.admin_cmds:init",
                        "Create a brain (a SQLite file or a PostgreSQL database, plus a config "
                        "file); re-runnable."),
    "list": LazyCommand("brainkeep.cli.page_cmds:list_", "List pages by slug."),
    "migrate": LazyCommand("brainkeep.cli.migrate_cmd:migrate_",
                           "Copy this brain to another engine: resumable, verified, ids and "
                           "hashes kept."),
    "oauth": LazyCommand("brainkeep.cli.oauth_cmds:oauth",
                         "OAuth 2.1 for `serve --http` (ChatGPT, Claude Desktop/claude.ai, "
                         "Perplexity...)."),
    "protocol": LazyCommand("brainkeep.cli.protocol_cmds:protocol",
                            "Describe the MEMORY_VERBS v1 protocol this server speaks."),
    "put": LazyCommand("brainkeep.cli.page_cmds:put",
                       "Create or update page SLUG from markdown (with optional YAML "
                       "frontmatter)."),
    "quarantine": LazyCommand("brainkeep.cli.quarantine_cmds:quarantine",
                              "Review held writes (suspected prompt injection): list, show, "
                              "release, reject."),
    "receipt": LazyCommand("brainkeep.cli.receipt_cmd:receipt",
                           "Issue the forget receipt of the erasure logged as event SEQ "
                           "(signed with a configured key)."),
    "recall": LazyCommand("brainkeep.cli.verb_cmds:verb_command", "recall (memory read)"),
    "remember": LazyCommand("brainkeep.cli.verb_cmds:verb_command", "remember (memory write)"),
    "search": LazyCommand("brainkeep.cli.verb_cmds:verb_command",
                          "Search pages only (recall also reads facts)."),
    "serve": LazyCommand("brainkeep.cli.serve_cmd:serve", "Serve the brain."),
    "share": LazyCommand("brainkeep.cli.grant_cmds:share",
                         "ACLs written by gRPC Share: list them, revoke one."),
    "synthesize": LazyCommand("brainkeep.cli.verb_cmds:verb_command",
                              "synthesize (slow, costly — LLM-backed)"),
    "token": LazyCommand("brainkeep.cli.token_cmds:token",
                         "Bearer tokens for remote agents (MCP over HTTP)."),
    "transcripts": LazyCommand("brainkeep.cli.transcripts_cmd:transcripts",
                               "Import agent sessions and chat exports (Claude Code, Codex, "
                               "ChatGPT, Claude.ai)."),
    "ui": LazyCommand("brainkeep.cli.ui_cmd:ui",
                      "Open the web console: pages, memories, search, audit, usage and access."),
    "verify": LazyCommand("brainkeep.cli.verify_cmd:verify",
                          "Walk the hash-chained event log and check pages, memories and "
                          "grants against it."),
}


@click.group(cls=BrainkeepGroup, lazy=COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"]})
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
    from brainkeep.core.memory import validation

    # Checked here, once, so a bad --org fails before any command runs (exit 2).
    state.org_id = validation.org_id(org_id)


def main() -> None:
    cli(prog_name="brainkeep")

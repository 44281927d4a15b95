"""`brainkeep protocol`: the MEMORY_VERBS v1 description, conformance, usage stats."""

from __future__ import annotations

import re
import textwrap
from typing import Any

import click

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.errors import InvalidInput, NotFound

pass_cli = click.make_pass_decorator(CliContext, ensure=True)

# A sentence ends at . ! or ? followed by a capitalized word, so "e.g. x" does not split.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


@click.group(invoke_without_command=True)
@json_option
@pass_cli
@click.pass_context
def protocol(ctx: click.Context, cli: CliContext) -> None:
    """Describe the MEMORY_VERBS v1 protocol this server speaks.

    With no subcommand: a summary of the seven verbs, or with --json the
    machine-readable document (input schemas from the live operation catalog,
    response schemas, the error schema).
    """
    if ctx.invoked_subcommand is not None:
        return
    from brainkeep.ops.registry import build_catalog
    from brainkeep.ops.response_schemas import protocol_document

    document = protocol_document(build_catalog())
    emit(cli, document, lambda: click.echo(render_protocol(document)))


def render_protocol(document: dict[str, Any]) -> str:
    """Human summary: one signature line and the first sentence of each verb."""
    lines = [
        f"{document['protocol']} v{document['protocol_version']} — "
        f"{len(document['verbs'])} memory verbs over MCP",
        "",
    ]
    for name, verb in document["verbs"].items():
        schema = verb["input_schema"]
        required = set(schema.get("required", ()))
        params = ", ".join(
            p if p in required else f"{p}?" for p in schema.get("properties", {})
        )
        lines.append(f"  {name}({params})")
        lines.extend(
            textwrap.wrap(
                _first_sentence(verb["description"]),
                width=96,
                initial_indent="      ",
                subsequent_indent="      ",
            )
        )
    lines += [
        "",
        "Machine-readable: `brainkeep protocol --json`. Contract and our documented "
        "differences from the reference: docs/protocol.md.",
    ]
    return "\n".join(lines)


def _first_sentence(text: str) -> str:
    return _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]


@protocol.command()
@click.option(
    "--target",
    help='Server to certify: an http(s):// MCP URL, or a stdio command "CMD ARGS" '
    "(split on whitespace). Default: this brain's own `brainkeep serve`.",
)
@click.option("--token", help="Bearer token for an HTTP target (sent as Authorization).")
@click.option(
    "--synthesize",
    is_flag=True,
    help="Also call synthesize (spends LLM tokens when a model is configured; "
    "without one it must answer `unavailable`).",
)
@click.option(
    "--cleanup",
    is_flag=True,
    help="After the run, forget the facts it remembered and delete the page it seeded.",
)
@json_option
@pass_cli
def conformance(cli: CliContext, target: str | None, token: str | None, synthesize: bool,
                cleanup: bool) -> None:
    """Certify a MEMORY_VERBS v1 server; exit 1 unless every check passes.

    The run WRITES into the target brain: it seeds a page
    people/conformance-<marker> (when the target has put_page) and
    remembers/forgets marker-named facts, and leaves them behind for
    inspection unless --cleanup is given.
    """
    from brainkeep.conformance import parse_target, run_conformance, self_target

    if target:
        try:
            resolved = parse_target(target, token=token)
        except ValueError as exc:
            raise InvalidInput(
                str(exc), suggestion='Pass --target URL or --target "CMD ARGS".', field="target"
            ) from exc
    else:
        settings = cli.settings
        if not settings.has_brain:
            raise NotFound(
                f"No brain at {settings.home} to self-certify.",
                suggestion="Run `brainkeep init` first, or pass --target to certify another "
                "server.",
            )
        # The spawned server must open THIS brain even when it came from --home.
        resolved = self_target({**settings.env, "BRAINKEEP_HOME": str(settings.home)})
    report = run_conformance(resolved, synthesize=synthesize, cleanup=cleanup)
    emit(cli, report.to_dict(), report.render())
    if not report.ok:
        raise SystemExit(1)


@protocol.command()
@click.option("--days", default="30", show_default=True,
              help="Window in days (1-3650; anything else is an error).")
@json_option
@pass_cli
def stats(cli: CliContext, days: str) -> None:
    """Per-verb usage from the local usage log (never uploaded), plus time-to-first-call."""
    from brainkeep.core import validate
    from brainkeep.core.limits import MAX_STATS_DAYS
    from brainkeep.ops.usage import UsageLog, render_stats, usage_stats

    # "nonsense" or -5 used to fall back to 30 silently: an answer for a window nobody asked.
    window = validate.bounded_int(days, field="days", minimum=1, maximum=MAX_STATS_DAYS)
    settings = cli.settings
    installed_at = None
    if settings.has_brain:
        value = cli.brain().store.get_meta("protocol_installed_at")
        installed_at = str(value) if value else None
    log = UsageLog(settings.usage_path)
    data = usage_stats(log.read(None), installed_at, window, sidecar=str(log.path))
    emit(cli, data, render_stats(data))

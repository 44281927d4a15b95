"""`brainkeep quarantine list|show|release|reject`: review the writes the injection scorer held.

A held memory or page is stored (never dropped) but hidden from every remote
reader until an operator releases it; rejecting deletes it. Both decisions
are audited events that ``brainkeep verify`` checks (docs/security.md). The
commands call the one core service the console's review page calls too
(core/quarantine/review.py).
"""

from __future__ import annotations

import click

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.core.quarantine.models import STATUSES, HeldEntry

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


def _line(entry: HeldEntry) -> str:
    return (f"#{entry.id}  {entry.status:<8} {entry.subject_type:<6} {entry.label}  "
            f"score {entry.score:g} ({', '.join(entry.rules)})  held {entry.held_at} "
            f"by {entry.held_by}")


@click.group()
def quarantine() -> None:
    """Review held writes (suspected prompt injection): list, show, release, reject."""


@quarantine.command("list")
@click.option("--status", type=click.Choice([*STATUSES, "all"]), default="pending",
              show_default=True, help="Which entries to list.")
@click.option("--limit", type=click.IntRange(1, 500), default=50, show_default=True)
@json_option
@pass_cli
def quarantine_list(cli: CliContext, status: str, limit: int) -> None:
    """List held writes, oldest first: id, status, memory or page, score and rules."""
    entries = cli.brain().quarantine.entries(
        cli.caller, status=None if status == "all" else status, limit=limit)
    rows = [e.to_dict() for e in entries]

    def human() -> None:
        if not entries:
            click.echo(f"no {status} held writes" if status != "all" else "no held writes")
        for entry in entries:
            click.echo(_line(entry))

    emit(cli, rows, human)


@quarantine.command("show")
@click.argument("entry_id", type=int)
@json_option
@pass_cli
def quarantine_show(cli: CliContext, entry_id: int) -> None:
    """Show held write ENTRY_ID: why it was held, and its full text."""
    item = cli.brain().quarantine.show(entry_id, cli.caller)

    def human() -> None:
        click.echo(_line(item.entry))
        click.echo("---")
        click.echo(item.text if item.text is not None else "(text gone: deleted or redacted)")

    emit(cli, item.to_dict(), human)


@quarantine.command("release")
@click.argument("entry_id", type=int)
@json_option
@pass_cli
def quarantine_release(cli: CliContext, entry_id: int) -> None:
    """Release held write ENTRY_ID: remote readers see it under the ordinary rules (audited)."""
    entry = cli.brain().quarantine.release(entry_id, cli.caller)
    emit(cli, entry.to_dict(), f"released #{entry.id} ({entry.label})")


@quarantine.command("reject")
@click.argument("entry_id", type=int)
@json_option
@pass_cli
def quarantine_reject(cli: CliContext, entry_id: int) -> None:
    """Reject held write ENTRY_ID: it is deleted and stays hidden (audited)."""
    entry = cli.brain().quarantine.reject(entry_id, cli.caller)
    emit(cli, entry.to_dict(), f"rejected #{entry.id} ({entry.label})")

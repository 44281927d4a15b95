"""`brainkeep migrate --to TARGET`: copy this brain to PostgreSQL (or back to a SQLite file)."""

from __future__ import annotations

import sys
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.core.ports.store import Store
from brainkeep.core.verify import verify_brain
from brainkeep.store import is_database_url, label_of, strip_password
from brainkeep.store.migrate import DEFAULT_BATCH, MigrationSummary, migrate

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


def _verify(store: Store) -> tuple[bool, int]:
    report = verify_brain(store)
    return report.valid, report.events_checked


@click.command("migrate")
@click.option("--to", "target", required=True, metavar="TARGET",
              help="Where to copy the brain: a postgresql:// URL (an empty database with "
              "pgvector; a password in it is used, never stored or printed) or a SQLite file "
              "path (new or empty).")
@click.option("--batch-size", default=DEFAULT_BATCH, show_default=True, type=click.IntRange(1),
              help="Rows per committed step; an interrupted run resumes after the last one.")
@json_option
@pass_cli
def migrate_(cli: CliContext, target: str, batch_size: int) -> None:
    """Copy this brain to another engine: resumable, verified, ids and hashes kept.

    Stop writers (servers) first. Every table is copied in id order and
    committed in batches; re-running the same command after an interruption
    continues where it stopped. Until the copy is complete and verified
    (row counts per table, the audit chain) the target refuses to open as a
    brain. The source is never modified.
    """
    settings = cli.settings
    source = cli.store()
    url = settings.database_url
    source_label = label_of(url) if url else str(settings.db_path)
    console = Console(stderr=True)
    show = not cli.json_mode and sys.stderr.isatty()
    with Progress(TextColumn("{task.description:<24}"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, disable=not show) as bar:
        task = bar.add_task("copying", total=None)

        def advance(table: str, done: int, total: int) -> None:
            bar.update(task, description=table, completed=done, total=total)

        summary = migrate(source, source_label, target, verifier=_verify,
                          batch_size=batch_size, progress=advance)
    data = summary.to_dict()
    data["next"] = _next_step(target)
    emit(cli, data, lambda: _render(summary, data["next"]))


def _next_step(target: str) -> str:
    if is_database_url(target):
        return ("Serve it: `brainkeep init --database "
                f"{strip_password(target)}` in a brain home (the password from "
                "BRAINKEEP_DATABASE_URL, PGPASSWORD or ~/.pgpass).")
    return (f"Serve it: move {target} to <home>/brain.db of a brain home and run "
            "`brainkeep --home <home> config set database.url ''` there.")


def _render(summary: MigrationSummary, next_step: str) -> None:
    console = Console()
    word = "Resumed and finished" if summary.resumed else "Copied"
    console.print(f"{word}: {summary.source} -> {summary.target}")
    table = Table("table", "source rows", "target rows", "copied now")
    for name, pair in summary.counts.items():
        table.add_row(name, str(pair["source"]), str(pair["target"]),
                      str(summary.copied.get(name, 0)))
    console.print(table)
    for name, why in summary.skipped.items():
        if "not copied" in why:
            console.print(f"[yellow]skipped {name}: {why}[/yellow]")
    verify: dict[str, Any] = summary.verify
    console.print(f"verify: {'valid' if verify.get('valid') else 'BROKEN'}, "
                  f"{verify.get('events_checked', 0)} events checked; row counts match")
    console.print(next_step)

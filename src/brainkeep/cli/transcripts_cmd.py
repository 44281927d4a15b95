"""`brainkeep transcripts import`: agent sessions and chat exports as pages."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.core.transcripts import FORMATS, ImportReport, TranscriptImporter
from brainkeep.core.transcripts.formats import transcript_files
from brainkeep.errors import InvalidInput

if TYPE_CHECKING:  # rich loads only when the command runs
    from rich.progress import Progress, TaskID

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


@click.group()
def transcripts() -> None:
    """Import agent sessions and chat exports (Claude Code, Codex, ChatGPT, Claude.ai).

    Every conversation becomes transcript pages (turns verbatim, with speaker
    and time) linked to the entities it mentions, found by `recall` and
    `search`. Secrets are replaced by [secret:<rule>] markers before anything
    is stored (docs/agents.md).
    """


def _progress(cli: CliContext) -> Progress:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    disable=cli.json_mode, transient=False,
                    # stdout carries the summary (or JSON); progress is chatter.
                    console=Console(stderr=True))


@transcripts.command("import")
@click.argument("paths", nargs=-1, required=True,
                type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(("auto", *FORMATS)), default="auto",
              show_default=True, help="Transcript format (auto: detected per file).")
@click.option("--private", is_flag=True,
              help="Write the pages private (remote callers and tokens never see them).")
@json_option
@pass_cli
def import_(cli: CliContext, paths: tuple[Path, ...], fmt: str, private: bool) -> None:
    """Import transcripts from PATH... (files, or folders walked for *.jsonl,
    conversations.json and .zip exports); re-runs write only new turns.

    Each conversation becomes pages transcripts/<format>/<id>[/part-N];
    secrets are replaced by [secret:<rule>] markers before anything is
    stored; tool calls and results are kept in a short form (docs/agents.md).
    Exit 1 when a file named here could not be imported.
    """
    brain = cli.brain()
    importer = TranscriptImporter(brain.pages, private=private)
    files: list[tuple[Path, bool]] = []  # (file, named on the command line)
    for path in paths:
        files += [(f, False) for f in transcript_files(path)] if path.is_dir() else [(path, True)]
    report = ImportReport()
    failed: list[tuple[str, str]] = []
    with _progress(cli) as bar:
        for file, named in files:
            task = bar.add_task(file.name, total=None)

            def tick(done: int, total: int, task: TaskID = task) -> None:
                bar.update(task, completed=done, total=total)

            try:
                report = report.plus(importer.import_path(file, fmt=fmt, progress=tick))
            except InvalidInput as exc:
                if named or fmt != "auto":
                    failed.append((str(file), exc.message))
                bar.remove_task(task)
    embedded = 0
    if brain.embeddings is not None and report.pages_written:
        from brainkeep.cli.embed_cmd import run_backfill

        embedded = run_backfill(cli, brain).embedded
    data = {**report.to_dict(), "errors": [{"file": f, "error": e} for f, e in failed],
            "embedded": embedded}

    def human() -> None:
        click.echo(
            f"{report.conversations} conversations from {report.files} files: "
            f"{report.turns_added} new turns, {report.turns_skipped} already imported; "
            f"{report.pages_written} pages written, {report.pages_unchanged} unchanged; "
            f"{report.secrets_scrubbed} secrets scrubbed"
            + (f"; {report.skipped_lines} unreadable lines skipped" if report.skipped_lines
               else "")
            + (f"; {report.quarantined} pages held for review as possible injections "
               "(brainkeep quarantine)" if report.quarantined else "")
        )
        for name, error in failed:
            click.echo(f"  failed: {name}: {error}", err=True)
        for problem in report.failed:
            click.echo(f"  failed page: {problem}", err=True)

    emit(cli, data, human)
    if failed or report.failed:
        raise SystemExit(1)

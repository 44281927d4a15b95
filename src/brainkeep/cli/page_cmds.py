"""put, get, list, delete, import, export."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from brainkeep.cli.app import CliContext, emit, json_option, read_text_arg
from brainkeep.core import validate
from brainkeep.core.clock import normalize_ts
from brainkeep.core.context import LOCAL
from brainkeep.core.limits import LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX
from brainkeep.core.transfer import check_import_root, export_dir, import_dir, stale_files
from brainkeep.errors import InvalidInput
from brainkeep.ops.page_ops import page_view

if TYPE_CHECKING:  # rich and the embedding jobs load only for import / export
    from rich.progress import Progress

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


@click.command()
@click.argument("slug")
@click.option("--file", "file", type=click.Path(), help="Markdown file to read (default: stdin).")
@json_option
@pass_cli
def put(cli: CliContext, slug: str, file: str | None) -> None:
    """Create or update page SLUG from markdown (with optional YAML frontmatter)."""
    content = read_text_arg(file)
    if file in (None, "-") and not content.strip():
        # An empty pipe (`put SLUG </dev/null`, a failed producer) is almost
        # never meant as "blank this page": refuse it as an empty terminal is.
        raise InvalidInput(
            "No content on stdin: refusing to write an empty page.",
            suggestion="Pipe the page's markdown on stdin, or pass --file PATH "
            "(`brainkeep delete SLUG` removes a page).",
            field="file",
        )
    result = cli.brain().pages.put_page(slug, content)
    data = {"slug": slug, "status": result.status, "content_hash": result.page.content_hash}
    emit(cli, data, f"{result.status}: {slug}")


@click.command()
@click.argument("slug")
@click.option("--links", is_flag=True, help="Also show links, backlinks and timeline.")
@json_option
@pass_cli
def get(cli: CliContext, slug: str, links: bool) -> None:
    """Print page SLUG (its markdown, or its record with --json)."""
    pages = cli.brain().pages
    page = pages.get_page(slug, LOCAL)
    data = page_view(page)
    if links:
        data["links"] = [vars(link) for link in pages.links(slug, LOCAL)]
        data["backlinks"] = [vars(link) for link in pages.backlinks(slug, LOCAL)]
        data["timeline"] = [vars(entry) for entry in pages.timeline(slug, LOCAL)]

    def human() -> None:
        click.echo(page.content.rstrip("\n"))
        if links:
            click.echo("\n-- links --")
            for link in data["links"]:
                click.echo(f"  -> {link['to_slug']} ({link['link_type']})")
            for link in data["backlinks"]:
                click.echo(f"  <- {link['from_slug']} ({link['link_type']})")

    emit(cli, data, human)


@click.command("list")
@click.option("--type", "page_type", help="Only pages of this type (e.g. person).")
@click.option("--prefix", help="Only slugs starting with this (e.g. people/).")
@click.option("--updated-after", help="Only pages updated after this ISO timestamp.")
@click.option("--after", help="Continue after this slug (pagination).")
@click.option("--limit", default=50, show_default=True, help="Pages per call (max 500).")
@json_option
@pass_cli
def list_(
    cli: CliContext,
    page_type: str | None,
    prefix: str | None,
    updated_after: str | None,
    after: str | None,
    limit: int,
) -> None:
    """List pages by slug."""
    if updated_after:
        try:
            updated_after = normalize_ts(updated_after)
        except ValueError as exc:
            raise InvalidInput(
                f"Cannot read --updated-after {updated_after!r}.",
                suggestion="Use an ISO 8601 date or timestamp, e.g. 2026-01-31.",
            ) from exc
    limit = validate.limit(limit, default=LIST_LIMIT_DEFAULT, maximum=LIST_LIMIT_MAX)
    pages = cli.brain().pages.list_pages(
        LOCAL, type=page_type, prefix=prefix, updated_after=updated_after,
        after_slug=after, limit=limit,
    )
    data = {
        "pages": [page_view(p, with_content=False) for p in pages],
        "next_after": pages[-1].slug if len(pages) == limit else None,
    }
    lines = [f"{p.slug}\t{p.type}\t{p.title}" for p in pages] or ["(no pages)"]
    emit(cli, data, "\n".join(lines))


@click.command()
@click.argument("slug")
@json_option
@pass_cli
def delete(cli: CliContext, slug: str) -> None:
    """Soft-delete page SLUG (history is kept)."""
    cli.brain().pages.delete_page(slug, LOCAL)
    emit(cli, {"slug": slug, "deleted": True}, f"deleted: {slug}")


def _progress(cli: CliContext, label: str) -> Progress:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=False,
        disable=cli.json_mode,
        # stdout carries the result (summary or JSON); progress is chatter.
        console=Console(stderr=True),
    )


@click.command("import")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@json_option
@pass_cli
def import_(cli: CliContext, directory: Path) -> None:
    """Load every .md file under DIRECTORY (slug = relative path); re-runs skip unchanged files."""
    check_import_root(directory)  # before the progress bar draws
    brain = cli.brain()
    with _progress(cli, "importing") as bar:
        task = bar.add_task("import", total=None)

        def tick(done: int, total: int, _name: str) -> None:
            bar.update(task, completed=done, total=total)

        summary = import_dir(brain.pages, directory, tick)
    embedded = 0
    if brain.embeddings is not None and (summary.added or summary.updated):
        from brainkeep.cli.embed_cmd import run_backfill

        embedded = run_backfill(cli, brain).embedded
    data = {
        "added": summary.added,
        "updated": summary.updated,
        "unchanged": summary.unchanged,
        "failed": [{"file": f, "error": e} for f, e in summary.failed],
        "skipped": [{"file": f, "reason": r} for f, r in summary.skipped],
        "embedded": embedded,
    }

    def human() -> None:
        click.echo(
            f"added {summary.added}, updated {summary.updated}, "
            f"unchanged {summary.unchanged}, failed {len(summary.failed)}"
            + (f", skipped {len(summary.skipped)}" if summary.skipped else "")
        )
        for name, reason in summary.skipped:
            click.echo(f"  warning: skipped {name}: {reason}", err=True)
        for name, error in summary.failed:
            click.echo(f"  failed: {name}: {error}", err=True)

    emit(cli, data, human)
    if summary.failed:
        raise SystemExit(1)


@click.command("export")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@json_option
@pass_cli
def export(cli: CliContext, directory: Path) -> None:
    """Write every page to DIRECTORY/<slug>.md with its frontmatter.

    Files already in DIRECTORY that are not pages of this brain (an older
    export's deleted pages, your own notes) are left alone and listed in a
    warning (`stale` in --json); export into an empty folder for a clean copy.
    """
    brain = cli.brain()
    with _progress(cli, "exporting") as bar:
        task = bar.add_task("export", total=None)
        count = export_dir(
            brain.pages, directory, lambda d, t, _n: bar.update(task, completed=d, total=t)
        )
    stale = stale_files(directory, brain.pages)

    def human() -> None:
        click.echo(f"exported {count} pages to {directory}")
        if stale:
            shown = ", ".join(stale[:5]) + (f", … ({len(stale) - 5} more)" if len(stale) > 5
                                             else "")
            click.echo(f"  warning: {len(stale)} .md file(s) in {directory} are not pages of "
                       f"this brain and were left as they were: {shown}. Export into an empty "
                       "folder for a clean copy.", err=True)

    emit(cli, {"exported": count, "directory": str(directory), "stale": stale}, human)

"""`brainkeep embed`: backfill vectors, dense and learned-sparse (resumable; re-embeds after a
model switch)."""

from __future__ import annotations

import time
from typing import Any

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from brainkeep.brain import Brain, build_embedder, build_sparse_encoder
from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.core.embedding_jobs import BATCH_TEXTS, BackfillReport, bulk_backfill
from brainkeep.core.sparse_jobs import SparseReport, backfill_sparse
from brainkeep.errors import InvalidInput

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


def report_data(report: BackfillReport) -> dict[str, Any]:
    """The JSON shape of a finished backfill."""
    plan = report.plan
    return {
        "model": plan.model,
        "dimensions": plan.dim,
        "previous_model": plan.previous[0] if plan.previous else None,
        "previous_dimensions": plan.previous[1] if plan.previous else None,
        "reembedded_for_model_switch": plan.switching,
        "chunks": plan.missing_chunks,
        "memories": plan.missing_memories,
        "embedded": report.embedded,
        "reused": report.reused,
        "seconds": round(report.seconds, 3),
        "texts_per_s": round(report.texts_per_s, 1),
        "dropped_old_vectors": report.dropped_old,
        "model_calls": report.model_calls,
        "cpu_seconds": round(report.cpu_seconds, 3),
    }


def sparse_data(report: SparseReport) -> dict[str, Any]:
    """The JSON shape of a finished sparse backfill."""
    return {"model": report.model, "chunks": report.missing_chunks,
            "memories": report.missing_memories, "encoded": report.encoded,
            "stored": report.stored, "pruned_postings": report.pruned,
            "seconds": round(report.seconds, 3), "texts_per_s": round(report.texts_per_s, 1),
            "cpu_seconds": round(report.cpu_seconds, 3)}


def run_sparse_backfill(cli: CliContext, brain: Brain) -> SparseReport:
    """Encode missing learned-sparse vectors with a progress bar on stderr."""
    assert brain.sparse is not None
    bar = Progress(TextColumn("sparse"), BarColumn(), MofNCompleteColumn(),
                   TimeRemainingColumn(), disable=cli.json_mode, console=Console(stderr=True))
    with bar:
        task = bar.add_task("sparse", total=None)
        try:
            return backfill_sparse(brain.sparse, progress=lambda done, total: bar.update(
                task, completed=done, total=total))
        except KeyboardInterrupt:
            bar.stop()
            click.echo("interrupted (saved); run `brainkeep embed` to resume", err=True)
            raise SystemExit(130) from None


def run_backfill(cli: CliContext, brain: Brain, batch_size: int = BATCH_TEXTS) -> BackfillReport:
    """Backfill missing vectors with a progress bar on stderr (Ctrl-C keeps what is saved)."""
    assert brain.embeddings is not None
    bar = Progress(
        TextColumn("embedding"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
        disable=cli.json_mode,
        # stdout carries the result; progress is chatter.
        console=Console(stderr=True),
    )
    done = [0]
    with bar:
        task = bar.add_task("embed", total=None, rate="")

        def tick(count: int, total: int) -> None:
            done[0] = count
            speed = bar.tasks[0].speed
            rate = f"{speed:.0f} texts/s" if speed else ""
            bar.update(task, completed=count, total=total, rate=rate)

        try:
            return bulk_backfill(brain.embeddings, batch=batch_size, progress=tick)
        except KeyboardInterrupt:
            bar.stop()
            click.echo(
                f"interrupted after {done[0]} texts (saved); run `brainkeep embed` to resume",
                err=True,
            )
            raise SystemExit(130) from None


@click.command()
@click.option(
    "--batch-size",
    type=click.IntRange(1, 10_000),
    default=BATCH_TEXTS,
    show_default=True,
    help="Texts per model call and per commit (an interruption loses at most two batches).",
)
@json_option
@pass_cli
def embed(cli: CliContext, batch_size: int) -> None:
    """Embed every page chunk and fact that has no vector yet; safe to interrupt and re-run.

    Texts that already have a vector (an identical text elsewhere, or an
    earlier run) are copied, not embedded. Safe while `brainkeep serve` serves
    the same brain: each batch commits in its own short transaction. Progress
    goes to stderr; --json prints the summary on stdout.

    If embeddings.model or its dimensions changed since the last run, every
    text is embedded again in the new model (old vectors are never mixed in).
    """
    # Built here first so a misconfiguration is an error, not a silent fallback.
    dense = build_embedder(cli.settings) is not None
    if not dense and build_sparse_encoder(cli.settings) is None:
        raise InvalidInput(
            "No embedding provider is configured (embeddings.provider = none, "
            "sparse.provider = none).",
            suggestion="Run `brainkeep config set embeddings.provider local` (offline model) "
            "or configure an http provider, or `brainkeep config set sparse.provider local`, "
            "then run `brainkeep embed` again.",
            field="embeddings.provider",
        )
    brain = cli.brain()
    sparse = run_sparse_backfill(cli, brain) if brain.sparse is not None else None
    if not dense:
        assert sparse is not None
        emit(cli, {"sparse": sparse_data(sparse)}, lambda: click.echo(_sparse_line(sparse)))
        return
    report = run_backfill(cli, brain, batch_size)
    data = report_data(report)
    if sparse is not None:
        data["sparse"] = sparse_data(sparse)
    # Built here rather than by the first server search (a background
    # build there serves exact search, with its memory cost, until done).
    if not cli.json_mode:
        click.echo("updating the vector index…", err=True)
    started = time.perf_counter()
    indexed = brain.search_index.build_vector_indexes()
    data["indexed"] = {"vectors": indexed, "seconds": round(time.perf_counter() - started, 3)}

    def human() -> None:
        plan = report.plan
        if plan.switching and plan.previous:
            click.echo(
                f"model changed from {plan.previous[0]} ({plan.previous[1]}d) to "
                f"{plan.model} ({plan.dim}d): re-embedded everything"
            )
        if plan.total == 0:
            click.echo(f"nothing to embed: every chunk and fact has a vector ({plan.model})")
            return
        click.echo(
            f"embedded {report.embedded} texts ({plan.missing_chunks} chunks, "
            f"{plan.missing_memories} facts; {report.reused} reused) in {report.seconds:.1f} s "
            f"— {report.texts_per_s:.0f} texts/s with {plan.model}"
        )
        for kind, count in indexed.items():
            click.echo(f"indexed {count} {kind} vectors for approximate search")
        if sparse is not None:
            click.echo(_sparse_line(sparse))

    emit(cli, data, human)


def _sparse_line(report: SparseReport) -> str:
    if report.total == 0:
        return f"sparse: nothing to encode: every chunk and fact has a vector ({report.model})"
    return (f"sparse: encoded {report.encoded} texts ({report.missing_chunks} chunks, "
            f"{report.missing_memories} facts) in {report.seconds:.1f} s — "
            f"{report.texts_per_s:.0f} texts/s with {report.model}")

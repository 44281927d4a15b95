"""init, verify, doctor, config."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import click

from brainkeep import __version__
from brainkeep.brain import Brain, build_embedder
from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.cli.embed_cmd import report_data
from brainkeep.config import KNOWN_KEYS, coerce_value, require_known, write_values
from brainkeep.core.clock import Clock
from brainkeep.core.embedding_jobs import backfill
from brainkeep.core.verify import verify_brain
from brainkeep.ops.usage import UsageLog, usage_health

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


@click.command()
@click.option(
    "--embeddings",
    type=click.Choice(["none", "local"]),
    default=None,
    help="Set embeddings.provider: `local` runs the offline model shipped with brainkeep "
    "(hybrid search, dedup by similarity) and embeds what the brain holds; `none` keeps "
    "keyword search only. Omitted: leave the setting as it is.",
)
@json_option
@pass_cli
def init(cli: CliContext, embeddings: str | None) -> None:
    """Create a brain (one SQLite file and a config file); safe to re-run."""
    settings = cli.settings
    existed = settings.db_path.exists()
    settings.home.mkdir(parents=True, exist_ok=True)
    if not settings.config_path.exists():
        write_values(settings, {})
    if embeddings is not None:
        values = {**settings.values, "embeddings.provider": embeddings}
        write_values(settings, values)
        settings = cli._settings = replace(settings, values=values)
    brain = cli.brain(must_exist=False)
    if brain.store.get_meta("protocol_installed_at") is None:
        with brain.store.transaction():
            brain.store.set_meta("protocol_installed_at", Clock().now_ts())
    data: dict[str, Any] = {
        "home": str(settings.home),
        "database": str(settings.db_path),
        "config": str(settings.config_path),
        "created": not existed,
        "schema_version": brain.store.schema_version(),
    }
    if embeddings == "local":
        data["embeddings"] = first_embed(cli, brain)
    elif embeddings == "none":
        data["embeddings"] = {"provider": "none"}

    def human() -> None:
        verb = "Created" if not existed else "Already set up:"
        click.echo(f"{verb} brain at {settings.home}")
        click.echo(f"  database: {settings.db_path}")
        click.echo(f"  config:   {settings.config_path}")
        if "embeddings" in data:
            info = data["embeddings"]
            click.echo(
                f"  embeddings: {info.get('model', 'none')}"
                + (f", {info['embedded']} texts embedded" if "embedded" in info else "")
            )
        click.echo("\nNext steps:")
        click.echo("  brainkeep import examples/notes     # load the sample notes (any .md folder)")
        click.echo('  brainkeep remember "Alice prefers email" --provenance "chat" '
                   "--entity people/alice")
        click.echo("  brainkeep recall --entity people/alice")
        click.echo("\nMemories agents save are readable by every agent connected to this brain;"
                   " use --visibility private for local-CLI-only facts.")

    emit(cli, data, human)


def first_embed(cli: CliContext, brain: Brain) -> dict[str, Any]:
    """Load the local model (proving it works offline) and embed what the brain holds."""
    # Building it directly turns a misconfiguration into an error here.
    build_embedder(cli.settings)
    assert brain.embeddings is not None
    brain.embeddings.embed(["brainkeep init: model check"])
    report = backfill(brain.embeddings)
    return {"provider": "local", **report_data(report)}


@click.command()
@json_option
@pass_cli
def doctor(cli: CliContext) -> None:
    """Show schema version, counts, chain status and database size."""
    brain = cli.brain()
    report = verify_brain(brain.store)
    data: dict[str, Any] = {
        "version": __version__,
        "home": str(cli.settings.home),
        "engine": brain.store.engine_name,
        "schema_version": brain.store.schema_version(),
        "counts": brain.store.counts(),
        "chain": {"valid": report.valid, "checked": report.events_checked},
        "db_size_bytes": brain.store.size_bytes(),
    }
    usage = usage_health(UsageLog(cli.settings.usage_path))
    data["memory_verbs_usage"] = {"ok": usage.ok, "message": usage.message}

    def human() -> None:
        click.echo(f"brainkeep {data['version']} — {data['home']}")
        click.echo(f"  engine:  {data['engine']}, schema version {data['schema_version']}")
        click.echo("  counts:  " + ", ".join(f"{k} {v}" for k, v in data["counts"].items()))
        status = "valid" if report.valid else "BROKEN (run `brainkeep verify`)"
        click.echo(f"  chain:   {status}, {report.events_checked} events")
        click.echo(f"  db size: {data['db_size_bytes'] / 1_048_576:.1f} MiB")
        click.echo(f"  usage:   {'' if usage.ok else 'WARN '}{usage.message}")

    emit(cli, data, human)


@click.group()
def config() -> None:
    """Read and write the brain's config file."""


@config.command("list")
@json_option
@pass_cli
def config_list(cli: CliContext) -> None:
    """Show every known key with its current value."""
    data = {key: cli.settings.get(key) for key in KNOWN_KEYS}
    lines = [f"{k} = {v!r}  # {KNOWN_KEYS[k].help}" for k, v in data.items()]
    emit(cli, data, "\n".join(lines))


@config.command("get")
@click.argument("key")
@json_option
@pass_cli
def config_get(cli: CliContext, key: str) -> None:
    """Print one key's value."""
    require_known(key)
    value = cli.settings.get(key)
    emit(cli, {key: value}, str(value))


@config.command("set")
@click.argument("key")
@click.argument("value")
@json_option
@pass_cli
def config_set(cli: CliContext, key: str, value: str) -> None:
    """Set KEY to VALUE (e.g. `brainkeep config set mcp_surface verbs`)."""
    coerced = coerce_value(key, value)
    values = dict(cli.settings.values)
    values[key] = coerced
    write_values(cli.settings, values)
    emit(cli, {key: coerced}, f"{key} = {coerced!r}")

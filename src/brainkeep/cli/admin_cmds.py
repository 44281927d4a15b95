"""init, verify, doctor, config."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from brainkeep import __version__
from brainkeep.brain_home import DATABASE_URL_ENV
from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.config import (
    KNOWN_KEYS,
    coerce_value,
    require_known,
    write_values,
)
from brainkeep.core.clock import Clock
from brainkeep.errors import InvalidInput

# The brain, the embedding jobs, the verifier and the PostgreSQL helpers (which
# load psycopg) are imported by the commands that use them, not by every one.
if TYPE_CHECKING:
    from brainkeep.brain import Brain

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
@click.option(
    "--database",
    "database",
    metavar="URL",
    default=None,
    help="Keep the brain in PostgreSQL (with pgvector) at URL, e.g. "
    "postgresql://brainkeep@db.example:5432/brain (default: $BRAINKEEP_DATABASE_URL, else a "
    "SQLite file in the home). The config records the URL without its password; give the "
    "password at run time in BRAINKEEP_DATABASE_URL, PGPASSWORD or ~/.pgpass.",
)
@json_option
@pass_cli
def init(cli: CliContext, embeddings: str | None, database: str | None) -> None:
    """Create a brain (a SQLite file or a PostgreSQL database, plus a config file); re-runnable."""
    settings = cli.settings
    values = dict(settings.values)
    if embeddings is not None:
        values["embeddings.provider"] = embeddings
    url = database or settings.env.get(DATABASE_URL_ENV) or None
    if url is not None:
        from brainkeep.store import is_database_url, strip_password

        if not is_database_url(url):
            raise InvalidInput(
                "--database takes a PostgreSQL URL (postgresql://user@host:port/database).",
                suggestion="Pass e.g. --database postgresql://brainkeep@localhost:5432/brain; "
                "omit it for a SQLite brain in the home folder.",
                field="database",
            )
        values["database.url"] = strip_password(url)
        # This run connects with the URL as given (password included); the
        # config file only ever gets the stripped one.
        settings = replace(settings, env={**settings.env, DATABASE_URL_ENV: url})
    settings = cli._settings = replace(settings, values=values)
    settings.home.mkdir(parents=True, exist_ok=True)
    # Connect before writing the config: an unreachable database must not
    # leave a home that points at it.
    store = cli.store(must_exist=False)
    write_values(settings, values)
    existed = store.get_meta("protocol_installed_at") is not None
    if not existed:
        with store.transaction():
            store.set_meta("protocol_installed_at", Clock().now_ts())
    engine = store.describe()
    data: dict[str, Any] = {
        "home": str(settings.home),
        "engine": engine["engine"],
        "database": engine["target"],
        "config": str(settings.config_path),
        "created": not existed,
        "schema_version": store.schema_version(),
    }
    if not engine["vector"]["available"]:
        data["vector_search"] = {"available": False, "install": engine["vector"]["install_hint"]}
    if embeddings == "local":
        data["embeddings"] = first_embed(cli, cli.brain(must_exist=False))
    elif embeddings == "none":
        data["embeddings"] = {"provider": "none"}

    def human() -> None:
        verb = "Created" if not existed else "Already set up:"
        click.echo(f"{verb} brain at {settings.home}")
        click.echo(f"  database: {data['database']} ({data['engine']})")
        click.echo(f"  config:   {settings.config_path}")
        if "vector_search" in data:
            click.echo("  vector search: unavailable (pgvector is not installed); keyword "
                       "search works and semantic search reports search_degraded.")
            click.echo(f"    install: {data['vector_search']['install']}")
        if "embeddings" in data:
            info = data["embeddings"]
            click.echo(
                f"  embeddings: {info.get('model', 'none')}"
                + (f", {info['embedded']} texts embedded" if "embedded" in info else "")
            )
        click.echo("\nNext steps:")
        click.echo("  brainkeep import examples/notes     # load the sample notes (any .md folder)")
        # The entity of the sample notes (examples/notes/people/alice-chen.md):
        # its title resolves to that page, so the fact shows on Alice's card.
        click.echo('  brainkeep remember "Alice prefers email" --provenance "chat" '
                   '--entity "Alice Chen"')
        click.echo('  brainkeep recall --entity "Alice Chen"')
        click.echo("\nMemories agents save are readable by every agent connected to this brain;"
                   " use --visibility private for local-CLI-only facts.")

    emit(cli, data, human)


def first_embed(cli: CliContext, brain: Brain) -> dict[str, Any]:
    """Load the local model (proving it works offline) and embed what the brain holds."""
    from brainkeep.brain import build_embedder
    from brainkeep.cli.embed_cmd import report_data
    from brainkeep.core.embedding_jobs import bulk_backfill

    # Building it directly turns a misconfiguration into an error here.
    build_embedder(cli.settings)
    assert brain.embeddings is not None
    brain.embeddings.embed(["brainkeep init: model check"])
    report = bulk_backfill(brain.embeddings)
    return {"provider": "local", **report_data(report)}


@click.command()
@json_option
@pass_cli
def doctor(cli: CliContext) -> None:
    """Show engine, server, pool, cache, migrations, counts, chain status and database size."""
    from brainkeep import hook_log
    from brainkeep.core.verify import verify_brain
    from brainkeep.ops.usage import UsageLog, usage_health

    store = cli.store()
    report = verify_brain(store)
    engine = store.describe()
    data: dict[str, Any] = {
        "version": __version__,
        "home": str(cli.settings.home),
        "engine": store.engine_name,
        "database": engine,
        "schema_version": store.schema_version(),
        "counts": store.counts(),
        "chain": {"valid": report.valid, "checked": report.events_checked},
        "db_size_bytes": store.size_bytes(),
    }
    usage = usage_health(UsageLog(cli.settings.usage_path))
    data["memory_verbs_usage"] = {"ok": usage.ok, "message": usage.message}
    data["sparse"] = sparse_coverage(cli, store)
    data["hooks"] = hook_log.summary(hook_log.read_heartbeat(cli.settings.home))

    def human() -> None:
        click.echo(f"brainkeep {data['version']} — {data['home']}")
        click.echo(f"  engine:  {data['engine']}, schema version {data['schema_version']}")
        for line in engine_lines(engine):
            click.echo(f"  {line}")
        click.echo("  counts:  " + ", ".join(f"{k} {v}" for k, v in data["counts"].items()))
        status = "valid" if report.valid else "BROKEN (run `brainkeep verify`)"
        click.echo(f"  chain:   {status}, {report.events_checked} events")
        click.echo(f"  db size: {data['db_size_bytes'] / 1_048_576:.1f} MiB")
        click.echo(f"  usage:   {'' if usage.ok else 'WARN '}{usage.message}")
        click.echo(f"  sparse:  {sparse_line(data['sparse'])}")
        click.echo(f"  hooks:   {hooks_line(data['hooks'])}")

    emit(cli, data, human)


def hooks_line(info: dict[str, Any]) -> str:
    """`doctor`'s human line for the hooks' heartbeat (``hook_log.summary``)."""
    if not info["runs"]:
        return "no hook has run (`brainkeep connect --install claude-code --hooks`)"
    prompt = info["events"].get("user-prompt") or {}
    line = (f"{info['runs']} recent runs, {info['failed_open']} failed open, "
            f"{info['items_injected']} items injected")
    if prompt:
        line += f"; user-prompt p50 {prompt['p50_ms']} ms, p99 {prompt['p99_ms']} ms"
    if info["failures"]:
        line += " (" + ", ".join(f"{code} {n}" for code, n in info["failures"].items()) + ")"
    last = info["last"]
    return line + f"; last {last['event']} {last['code']} at {last['at']}"


def sparse_coverage(cli: CliContext, store: Any) -> dict[str, Any]:
    """The learned-sparse arm's coverage: rows holding a vector and rows still missing one."""
    from brainkeep.core.models import DEFAULT_SOURCE
    from brainkeep.providers.sparse_encoder import SPARSE_MODEL_ID

    provider = str(cli.settings.get("sparse.provider") or "none")
    if not store.vectors_available:
        return {"provider": provider, "available": False}
    index = store.search_index(DEFAULT_SOURCE).sparse(SPARSE_MODEL_ID)
    have, missing = index.count(), index.count_missing()
    return {"provider": provider, "available": True, "model": SPARSE_MODEL_ID,
            "chunks": have["chunk"], "memories": have["memory"],
            "missing_chunks": missing["chunk"], "missing_memories": missing["memory"]}


def sparse_line(info: dict[str, Any]) -> str:
    """`doctor`'s human line for ``sparse_coverage``."""
    if not info["available"]:
        return "unavailable (pgvector is not installed)"
    state = "on" if info["provider"] != "none" else "off (sparse.provider none)"
    line = (f"{state}, {info['model']}: {info['chunks']} chunks and {info['memories']} facts "
            "encoded")
    missing = info["missing_chunks"] + info["missing_memories"]
    if missing and info["provider"] != "none":
        line += f", {missing} missing (run `brainkeep embed`)"
    return line


def engine_lines(engine: dict[str, Any]) -> list[str]:
    """The human lines of ``Store.describe()`` for `doctor`."""
    vector = engine["vector"]
    lines = [f"database: {engine['target']} ({engine['server_version']})",
             "vectors: " + (str(vector["version"]) if vector["available"] else
                            "pgvector missing, semantic search degraded: "
                            + str(vector.get("install_hint", "")))]
    if engine["pool"] is not None:
        pool = engine["pool"]
        lines.append(f"pool:    {pool['size']} open ({pool['idle']} idle) of "
                     f"{pool['min']}..{pool['max']}, {pool['waiting']} waiting")
    cache = engine.get("cache")
    if cache is not None:
        mib = 1_048_576
        lines.append(f"cache:   shared_buffers {cache['size_bytes'] / mib:,.0f} MiB, search tables "
                     f"and indexes {cache['search_bytes'] / mib:,.0f} MiB" + (
                         "" if cache["fits"] else " — WARN searches read pages from the OS; "
                         "raise shared_buffers (docs/postgres.md, \"Memory sizing\")"))
    migrations = engine["migrations"]
    state = "up to date" if not migrations["pending"] else \
        f"pending {migrations['pending']}"
    if migrations["skipped"]:
        state += f", skipped {migrations['skipped']} (missing extension)"
    lines.append(f"migrations: {state}")
    return lines


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
    if key == "database.url" and coerced:
        from brainkeep.store import is_database_url, strip_password

        if not is_database_url(str(coerced)):
            raise InvalidInput("database.url takes a postgresql:// URL (blank: SQLite).",
                               suggestion="e.g. postgresql://brainkeep@localhost:5432/brain",
                               field="value")
        coerced = strip_password(str(coerced))  # the config file never holds a password
    values = dict(cli.settings.values)
    values[key] = coerced
    write_values(cli.settings, values)
    emit(cli, {key: coerced}, f"{key} = {coerced!r}")

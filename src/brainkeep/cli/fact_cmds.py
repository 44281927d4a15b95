"""remember, recall, forget (trusted local caller)."""

from __future__ import annotations

import click

from brainkeep.cli.app import CliContext, emit, json_option
from brainkeep.cli.views import fact_view
from brainkeep.core.clock import normalize_ts
from brainkeep.core.context import LOCAL
from brainkeep.core.models import FACT_KINDS, VISIBILITIES
from brainkeep.errors import InvalidInput

pass_cli = click.make_pass_decorator(CliContext, ensure=True)


@click.command()
@click.argument("fact")
@click.option("--provenance", "-p", required=True, help="Where the fact came from (required).")
@click.option("--entity", "-e", help="Who or what it is about (slug, title or alias).")
@click.option("--kind", type=click.Choice(FACT_KINDS), default="fact", show_default=True)
@click.option("--ttl", help="Lifetime: 30d, 12h, 45m, or an ISO 8601 timestamp.")
@click.option("--visibility", type=click.Choice(VISIBILITIES), default="world", show_default=True)
@click.option("--session", "session_id", help="Session id to file the fact under.")
@json_option
@pass_cli
def remember(
    cli: CliContext,
    fact: str,
    provenance: str,
    entity: str | None,
    kind: str,
    ttl: str | None,
    visibility: str,
    session_id: str | None,
) -> None:
    """Save one FACT with its provenance."""
    result = cli.brain().facts.remember(
        fact, provenance, LOCAL, entity=entity, kind=kind, ttl=ttl,
        visibility=visibility, session_id=session_id,
    )
    data = {"id": result.memory.fact_id, "status": result.status, **fact_view(result.memory)}
    emit(cli, data, f"{result.status}: fact {result.memory.fact_id}")


@click.command()
@click.option("--entity", "-e", help="Facts about this entity.")
@click.option("--since", help="Only facts recorded at or after this ISO 8601 date/time.")
@click.option("--session", "session_id", help="Only facts from this session.")
@click.option("--limit", default=50, show_default=True, help="At most this many facts (max 100).")
@click.option("--include-expired", is_flag=True, help="Also show expired facts.")
@json_option
@pass_cli
def recall(
    cli: CliContext,
    entity: str | None,
    since: str | None,
    session_id: str | None,
    limit: int,
    include_expired: bool,
) -> None:
    """Recall saved facts (filters compose)."""
    if since:
        try:
            since = normalize_ts(since)
        except ValueError as exc:
            raise InvalidInput(
                f"Cannot read --since {since!r}.",
                suggestion="Use an ISO 8601 date or timestamp, e.g. 2026-06-01.",
            ) from exc
    facts = cli.brain().facts.list_facts(
        LOCAL, entity=entity, since=since, session_id=session_id,
        include_expired=include_expired, limit=limit,
    )
    data = {"facts": [fact_view(m) for m in facts], "total": len(facts)}
    lines = [
        f"[{m.fact_id}] {m.text}  ({m.entity_slug or '-'}; {m.provenance})" for m in facts
    ] or ["(no facts)"]
    emit(cli, data, "\n".join(lines))


@click.command()
@click.argument("fact_id")
@click.option("--reason", help="Why the fact is being forgotten.")
@json_option
@pass_cli
def forget(cli: CliContext, fact_id: str, reason: str | None) -> None:
    """Expire fact FACT_ID (kept for audit, hidden from recall)."""
    result = cli.brain().facts.forget(fact_id, LOCAL, reason=reason)
    data = {"id": result.memory.fact_id, "expired": result.expired, "reason": result.reason}
    text = f"forgot fact {fact_id}" if result.expired else f"fact {fact_id} was already expired"
    emit(cli, data, text)

"""The recall filters of the memory paths, compiled to SQL once for both engines.

``memory_filter_sql`` is gRPC recall's ``MemoryFilter`` (every Mnemo
strategy and the keyword index's memories arm); ``fact_filter_sql`` is the
retrieval facts arm's ``FactFilter`` (vector and keyword reads). Both put
the one read scope (``scope.py``) beside their own filters, so a tenant,
quarantine, lifecycle or access rule cannot differ between strategies,
protocols or engines: the Mnemo reference filtered ``org_id`` in some
strategies only.

The fragments use the portable marks (``dialect.py``): ``self.sql`` runs
them as they are; engine code that writes its own psycopg statements
translates the fragment with ``to_psycopg``.
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.retrieval import FactFilter
from brainkeep.store.sql.dialect import Dialect, named, positional
from brainkeep.store.sql.scope import live, readable


def _by_ids_hint(dialect: Dialect) -> str:
    # SQLite's unary + keeps the planner off the (source_id, ...) indexes: with
    # them it scans every row of the source instead of looking up the ids it
    # was given (measured: 10 ms instead of 0.2 ms at 40K rows). PostgreSQL has
    # no such spelling on text, nor need: its planner picks the id lookups by cost.
    return dialect.pick(sqlite="+", postgres="")


def memory_filter_sql(filt: MemoryFilter, dialect: Dialect) -> tuple[str, dict[str, Any]]:
    """WHERE fragment (alias ``m``, ``:name`` marks) for memories ``filt``'s reader may recall."""
    params: dict[str, Any] = {"source": filt.source_id}
    bind = named(params)
    scope = filt.read_scope
    clauses = [
        f"{_by_ids_hint(dialect)}m.source_id = :source",
        readable(scope, filt.now, bind),
        live(filt.now, bind, as_of=scope.as_of),
    ]
    if filt.memory_type:
        clauses.append(f"m.memory_type = {bind(filt.memory_type)}")
    if filt.scope:
        clauses.append(f"m.scope = {bind(filt.scope)}")
    if filt.min_importance is not None:
        clauses.append(f"m.importance >= {bind(filt.min_importance)}")
    if filt.tags:
        among = dialect.in_named("t.tag", filt.tags, params, "tag")
        clauses.append(
            f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = m.id AND {among})"
        )
    return " AND ".join(clauses), params


def fact_filter_sql(
    source_id: str, filt: FactFilter, alias: str = "", *, dialect: Dialect,
    by_ids: bool = False,
) -> tuple[str, list[Any]]:
    """WHERE clauses (``?`` marks) of the facts arm: the caller's filters, read scope, liveness.

    ``alias`` is the table prefix with its dot (``"m."``) or empty for
    ``memories`` itself; ``by_ids``: the query looks up a list of ids (the
    planner hint of ``_by_ids_hint``).
    """
    a = alias
    clauses = [f"{_by_ids_hint(dialect) if by_ids else ''}{a}source_id = ?"]
    params: list[Any] = [source_id]
    for column, op, value in (
        ("entity_slug", "=", filt.entity_slug),
        ("created_at", ">=", filt.since),
        ("created_at", "<=", filt.until),
        ("session_id", "=", filt.session_id),
    ):
        if value is not None:
            clauses.append(f"{a}{column} {op} ?")
            params.append(value)
    bind = positional(params)
    table = a.rstrip(".") or "memories"
    clauses.append(readable(filt.scope, filt.now, bind, table))
    clauses.append(live(filt.now, bind, table, as_of=filt.scope.as_of,
                        include_expired=filt.include_expired))
    if filt.text_contains:
        # Both lower()s fold ASCII only (SQLite's; PostgreSQL's on a COLLATE "C" column).
        find = dialect.pick(sqlite="instr", postgres="strpos")
        clauses.append(f"{find}(lower({a}text), lower(?)) > 0")
        params.append(filt.text_contains)
    return " AND ".join(clauses), params

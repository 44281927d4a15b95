"""The facts-arm filter of the retrieval reads (``FactFilter``), PostgreSQL dialect.

A translation of ``store/sqlite/vectors.fact_filter_sql``; the read scope
comes from the one builder (``visibility`` -> ``store/sql/scope.py``), so
tenant, quarantine and access rules cannot drift from SQLite's. (gRPC
recall's ``MemoryFilter`` twin is ``mnemo.memory_filter_sql``.)
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.retrieval import FactFilter
from brainkeep.store.postgres import visibility


def fact_filter_sql(source_id: str, filt: FactFilter, alias: str = "") -> tuple[str, list[Any]]:
    """WHERE clauses (``%s`` placeholders) of the facts arm: filters, read scope, liveness.

    ``alias`` is the table prefix with its dot (``"m."``) or empty for
    ``memories`` itself.
    """
    a = alias
    clauses = [f"{a}source_id = %s"]
    params: list[Any] = [source_id]
    for column, op, value in (
        ("entity_slug", "=", filt.entity_slug),
        ("created_at", ">=", filt.since),
        ("created_at", "<=", filt.until),
        ("session_id", "=", filt.session_id),
    ):
        if value is not None:
            clauses.append(f"{a}{column} {op} %s")
            params.append(value)
    bind = visibility.positional(params)
    table = a.rstrip(".") or "memories"
    clauses.append(visibility.readable(filt.scope, filt.now, bind, table))
    clauses.append(visibility.live(filt.now, bind, table, as_of=filt.scope.as_of,
                                   include_expired=filt.include_expired))
    if filt.text_contains:
        # lower() of a COLLATE "C" column folds ASCII only, as SQLite's does.
        clauses.append(f"strpos(lower({a}text), lower(%s)) > 0")
        params.append(filt.text_contains)
    return " AND ".join(clauses), params


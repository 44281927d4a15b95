"""The read scope compiled to SQL for this engine: ``store/sql/scope.py`` in SQLite dialect.

``core/scope.py`` states the rules; this is their only SQL form. Both the
facts arm of the MCP verbs and every gRPC recall strategy call it, so a
tenant, quarantine or access rule cannot differ between the protocols.
Placeholders come from a ``bind`` callback, so the fragment serves queries
with positional (``?``) and named (``:name``) parameters alike.
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.scope import ReadScope
from brainkeep.store.sql import scope as sql_scope
from brainkeep.store.sql.dialect import SQLITE, Bind
from brainkeep.store.sql.scope import acl_live, delegation_covers, live, shares_live

__all__ = ["Bind", "acl_live", "delegation_covers", "live", "named", "positional", "readable",
           "shares_live"]


def positional(params: list[Any]) -> Bind:
    """A binder appending ``?`` placeholders to a positional parameter list."""

    def bind(value: Any) -> str:
        params.append(value)
        return "?"

    return bind


def named(params: dict[str, Any], prefix: str = "v") -> Bind:
    """A binder adding ``:{prefix}N`` entries to a named parameter dict."""

    def bind(value: Any) -> str:
        name = f"{prefix}{len(params)}"
        params[name] = value
        return f":{name}"

    return bind


def readable(scope: ReadScope, now: str, bind: Bind, table: str = "m") -> str:
    """WHERE fragment: rows of ``table`` the scope's reader may see (``sql_scope.readable``)."""
    return sql_scope.readable(scope, now, bind, table, dialect=SQLITE)

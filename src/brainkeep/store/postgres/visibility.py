"""The read scope compiled to SQL for this engine: ``store/sql/scope.py`` in PostgreSQL dialect.

The same functions as ``store/sqlite/visibility.py`` (one rule set, two
dialects): positional binders emit ``%s``, named ones ``%(vN)s``, and a
tenant without an org matches through ``IS NOT DISTINCT FROM``.
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.scope import ReadScope
from brainkeep.store.sql import scope as sql_scope
from brainkeep.store.sql.dialect import POSTGRES, Bind
from brainkeep.store.sql.scope import acl_live, delegation_covers, live, shares_live

__all__ = ["Bind", "acl_live", "delegation_covers", "live", "named", "positional", "readable",
           "shares_live"]


def positional(params: list[Any]) -> Bind:
    """A binder appending ``%s`` placeholders to a positional parameter list."""

    def bind(value: Any) -> str:
        params.append(value)
        return "%s"

    return bind


def named(params: dict[str, Any], prefix: str = "v") -> Bind:
    """A binder adding ``%({prefix}N)s`` entries to a named parameter dict."""

    def bind(value: Any) -> str:
        name = f"{prefix}{len(params)}"
        params[name] = value
        return f"%({name})s"

    return bind


def readable(scope: ReadScope, now: str, bind: Bind, table: str = "m") -> str:
    """WHERE fragment: rows of ``table`` the scope's reader may see (``sql_scope.readable``)."""
    return sql_scope.readable(scope, now, bind, table, dialect=POSTGRES)

"""The read scope compiled to SQL for this engine: ``store/sql/scope.py`` in SQLite dialect.

``core/scope.py`` states the rules; this is their only SQL form. Both the
facts arm of the MCP verbs and every gRPC recall strategy call it, so a
tenant, quarantine or access rule cannot differ between the protocols.
Placeholders come from a ``bind`` callback, so the fragment serves queries
with positional (``?``) and named (``:name``) parameters alike.
"""

from __future__ import annotations

from brainkeep.core.scope import ReadScope
from brainkeep.store.sql import scope as sql_scope

# SQLite's own marks are the portable ones, so its binders are those of sql/dialect.py.
from brainkeep.store.sql.dialect import SQLITE, Bind, named, positional
from brainkeep.store.sql.scope import acl_live, delegation_covers, live, shares_live

__all__ = ["Bind", "acl_live", "delegation_covers", "live", "named", "positional", "readable",
           "shares_live"]


def readable(scope: ReadScope, now: str, bind: Bind, table: str = "m") -> str:
    """WHERE fragment: rows of ``table`` the scope's reader may see (``sql_scope.readable``)."""
    return sql_scope.readable(scope, now, bind, table, dialect=SQLITE)

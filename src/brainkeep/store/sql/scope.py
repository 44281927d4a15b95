"""The read scope compiled to SQL, once, for every engine (one rule, one place).

``core/scope.py`` states the rules; this is their only SQL form. Both the
facts arm of the MCP verbs and every gRPC recall strategy of every engine
call it, so a tenant, quarantine or access rule cannot differ between the
protocols or between SQLite and PostgreSQL. The engines differ only in
null-safe equality (``Dialect``). Placeholders come from a ``bind`` callback,
so one fragment serves queries with positional and named parameters alike,
in the portable marks (``store/sql/dialect.py``) or an engine's own.
"""

from __future__ import annotations

from brainkeep.core.scope import OPEN_SCOPES, ReadScope
from brainkeep.store.sql.dialect import Bind, equals

_OPEN = ", ".join(f"'{s}'" for s in OPEN_SCOPES)


def acl_live(acl: str, now: str) -> str:
    """An ACL row (alias ``acl``) that has not expired at placeholder ``now``.

    A revoked ACL has no row (core/memory/revocation.py), so it is never live.
    """
    return f"({acl}.expires_at IS NULL OR {acl}.expires_at > {now})"


def shares_live(t: str, now: str) -> str:
    """Memory ``t`` reads as shared: written shared, or Share made it so and an ACL is live.

    ``core/scope.py`` ``shares_live``; the caller has already required
    ``{t}.scope = 'shared'``.
    """
    return (
        f"({t}.shared_by_grant = 0 OR EXISTS (SELECT 1 FROM mnemo_acls s "
        f"WHERE s.memory_id = {t}.id AND {acl_live('s', now)}))"
    )


def delegation_covers(d: str, t: str, now: str) -> str:
    """A live delegation row (alias ``d``) whose owner and selector cover memory ``t``.

    Revoking a delegation removes its row and its re-delegations' rows
    (core/memory/revocation.py), so a child never outlives its parent's revocation.
    """
    return (
        f"{d}.owner = {t}.agent_id AND ({d}.expires_at IS NULL OR {d}.expires_at > {now}) AND ("
        f"{d}.selector = 'all' "
        f"OR ({d}.selector = 'ids' AND EXISTS (SELECT 1 FROM mnemo_delegation_items i "
        f"WHERE i.delegation_id = {d}.id AND i.memory_id = {t}.id)) "
        f"OR ({d}.selector = 'tags' AND EXISTS (SELECT 1 FROM mnemo_delegation_items i "
        f"JOIN memory_tags tg ON tg.tag = i.tag WHERE i.delegation_id = {d}.id "
        f"AND tg.memory_id = {t}.id)))"
    )


def tenant(table: str, org_id: str | None, bind: Bind) -> str:
    """WHERE fragment: rows of ``table`` in the tenant ``org_id`` (None: the no-org tenant).

    Through ``equals``: with one null-safe comparison PostgreSQL's planner took
    the filter to keep one row of every tenant, so a recall read of the no-org
    tenant sorted a full scan instead of walking ``memories_created`` (79 ms
    against 1.4 ms at 14K memories; docs/postgres.md, "The tenant filter").
    """
    return equals(f"{table}.org_id", org_id, bind)


def readable(scope: ReadScope, now: str, bind: Bind, table: str = "m") -> str:
    """WHERE fragment: rows of ``table`` the scope's reader may see (lifecycle aside).

    Tenant always applies; trusted readers (the local CLI) see every row of
    their tenant; remote readers never see quarantined rows and see private
    and shared rows only as owner or live grant holder (a row Share made
    shared, only while one of its ACLs is live: ``shares_live``).
    """
    t = table
    clauses = [tenant(t, scope.org_id, bind)]
    if scope.trusted:
        return clauses[0]
    clauses.append(f"{t}.quarantined = 0")
    if not scope.reader:
        clauses.append(f"{t}.scope IN ({_OPEN})")
        return " AND ".join(clauses)
    # Positional binders need one value per placeholder, so every use binds
    # anew, in the order the fragments appear in the text.
    owner = bind(scope.reader)
    acl = (
        f"EXISTS (SELECT 1 FROM mnemo_acls a WHERE a.memory_id = {t}.id "
        f"AND a.grantee = {bind(scope.reader)} AND {acl_live('a', bind(now))})"
    )
    delegation = (
        f"EXISTS (SELECT 1 FROM mnemo_delegations d WHERE d.delegate = {bind(scope.reader)} "
        f"AND {delegation_covers('d', t, bind(now))})"
    )
    # A live ACL of the reader proves the share live; a delegation alone
    # covers a memory Share made shared only while some ACL on it is live.
    clauses.append(
        f"({t}.scope IN ({_OPEN}) OR {t}.agent_id = {owner} "
        f"OR ({t}.scope = 'shared' AND ({acl} OR ({delegation} "
        f"AND {shares_live(t, bind(now))}))))"
    )
    return " AND ".join(clauses)


def live(now: str, bind: Bind, table: str = "m", *, as_of: str | None = None,
         include_expired: bool = False) -> str:
    """WHERE fragment: rows live now, live at ``as_of``, or (``include_expired``) not deleted."""
    t = table
    if as_of:
        # A point-in-time view includes memories deleted or expired since.
        return (
            f"{t}.created_at <= {bind(as_of)} "
            f"AND ({t}.deleted_at IS NULL OR {t}.deleted_at > {bind(as_of)}) "
            f"AND ({t}.expired_at IS NULL OR {t}.expired_at > {bind(as_of)}) "
            f"AND ({t}.valid_until IS NULL OR {t}.valid_until > {bind(as_of)})"
        )
    if include_expired:
        return f"{t}.deleted_at IS NULL"
    return (
        f"{t}.expired_at IS NULL AND {t}.deleted_at IS NULL "
        f"AND ({t}.valid_until IS NULL OR {t}.valid_until > {bind(now)})"
    )

"""Put a used brain database back to its just-migrated state, for the next test.

Copying the migrated template (``CREATE DATABASE … TEMPLATE``) writes ~9 MB
per test: 0.1-0.5 s on a busy 2-core box, paid by every PostgreSQL test of
the verb, gRPC and conformance suites. Emptying the tables of a database a
finished test used takes a few ms: end its sessions, delete every row
(children before parents), put back the rows the migrations seeded (meta,
sources, …) and rewind every sequence, so ids and event seqs start where a
fresh brain's do. ``matches`` then checks every table against the template;
a database that does not match is dropped instead of reused.
"""

from __future__ import annotations

from dataclasses import dataclass
from graphlib import TopologicalSorter
from typing import Any

import psycopg
from psycopg import sql

# The migrator's own bookkeeping is the schema's, not the brain's rows.
KEEP = frozenset({"schema_migrations"})


@dataclass(frozen=True)
class Seed:
    """One table's rows in the template (non-generated columns only)."""

    table: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class Snapshot:
    """What a just-migrated brain database holds, to restore it."""

    delete_order: tuple[str, ...]  # every table, referencing tables first
    seeds: tuple[Seed, ...]
    sequences: tuple[tuple[str, int, int | None], ...]  # (name, start, last or None)
    counts: dict[str, int]


def snapshot(url: str) -> Snapshot:
    """Read the template's tables, seeded rows and sequence positions."""
    with psycopg.connect(url, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
            if r[0] not in KEEP]
        order = TopologicalSorter({t: set() for t in tables})
        for child, parent in conn.execute(
            "SELECT child.relname, parent.relname FROM pg_constraint c "
            "JOIN pg_class child ON child.oid = c.conrelid "
            "JOIN pg_class parent ON parent.oid = c.confrelid "
            "WHERE c.contype = 'f' AND c.conrelid <> c.confrelid"
        ):
            order.add(parent, child)  # a parent's rows go after its children's
        seeds, counts = [], {}
        for table in tables:
            columns = tuple(r[0] for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                "'public' AND table_name = %s AND is_generated = 'NEVER' "
                "ORDER BY ordinal_position", (table,)))
            rows = conn.execute(sql.SQL("SELECT {} FROM {}").format(
                sql.SQL(", ").join(map(sql.Identifier, columns)), sql.Identifier(table))
            ).fetchall()
            counts[table] = len(rows)
            if rows:
                seeds.append(Seed(table, columns, tuple(rows)))
        sequences = tuple(conn.execute(
            "SELECT format('%I.%I', schemaname, sequencename), start_value, last_value "
            "FROM pg_sequences WHERE schemaname = 'public'").fetchall())
    return Snapshot(tuple(order.static_order()), tuple(seeds), sequences, counts)


def reset(admin_url: str, url: str, dbname: str, snap: Snapshot) -> bool:
    """Empty ``dbname`` back to ``snap``; False when it is not a clean copy afterwards."""
    with psycopg.connect(admin_url, autocommit=True) as admin:
        # A server a test killed, or a pool it leaked, must not hold locks or
        # write into the next test's brain.
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = %s AND pid <> pg_backend_pid()", (dbname,))
    with psycopg.connect(url) as conn:
        with conn.transaction():
            for table in snap.delete_order:
                conn.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(table)))
            for seed in snap.seeds:
                insert = sql.SQL("INSERT INTO {} ({}) OVERRIDING SYSTEM VALUE VALUES ({})").format(
                    sql.Identifier(seed.table),
                    sql.SQL(", ").join(map(sql.Identifier, seed.columns)),
                    sql.SQL(", ").join(sql.Placeholder() * len(seed.columns)))
                with conn.cursor() as cur:
                    cur.executemany(insert, seed.rows)
            for name, start, last in snap.sequences:
                conn.execute("SELECT setval(%s::regclass, %s, %s)",
                             (name, start if last is None else last, last is not None))
        return matches(conn, snap)


def matches(conn: psycopg.Connection[Any], snap: Snapshot) -> bool:
    """True when every table holds as many rows as the template's."""
    for table, expected in snap.counts.items():
        row = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(
            sql.Identifier(table))).fetchone()
        if row is None or row[0] != expected:
            return False
    return True

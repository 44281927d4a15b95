"""One SQL text for both engines: the dialect's few differences, and the one way to run it.

Repositories in ``store/sql/`` write every statement once, in SQLite's
parameter style: ``?`` with a sequence of parameters, ``:name`` with a dict.
``SQL`` runs such a statement on either engine: SQLite takes it as written;
for psycopg it becomes ``%s`` / ``%(name)s`` (with a literal ``%`` doubled),
translated once per statement text and cached. So a portable statement must
not hold a ``?`` or a ``:word`` inside a string literal (bind the value).

What really differs is named by ``Dialect`` and nothing else:

- null-safe (in)equality: ``IS`` / ``IS NOT`` (SQLite) against ``IS NOT
  DISTINCT FROM`` / ``IS DISTINCT FROM`` (PostgreSQL);
- membership in a list of values: ``col IN (?, ?, …)`` against
  ``col = ANY(?)`` with one array parameter (one plan for any length);
- ``pick(sqlite=…, postgres=…)`` for the rare fragment (a planner hint, a
  cast) that has no common spelling.

Both engines return an inserted row with ``INSERT … RETURNING`` (SQLite
3.35+), so no repository needs ``lastrowid``. Full-text upkeep (SQLite's
hand-kept FTS side tables against PostgreSQL's generated ``tsv`` columns) is
the engine's, behind the hooks each repository names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

Params = Sequence[Any] | dict[str, Any]
Bind = Callable[[Any], str]

_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


@dataclass(frozen=True)
class Dialect:
    """The fragments that differ between SQLite and PostgreSQL (see module doc)."""

    name: str
    # Equality and inequality that treat NULL as a value (a tenant without an org).
    null_safe_eq: str
    null_safe_ne: str
    # True: a value list binds as one array parameter (``= ANY(?)``).
    array_params: bool

    def in_list(self, column: str, values: Sequence[Any], params: list[Any]) -> str:
        """``column`` is one of ``values`` (appended to the positional ``params``)."""
        if self.array_params:
            params.append(list(values))
            return f"{column} = ANY(?)"
        if not values:
            return "0"  # SQLite's false
        params.extend(values)
        return f"{column} IN ({', '.join('?' * len(values))})"

    def in_named(self, column: str, values: Sequence[Any], params: dict[str, Any],
                 prefix: str) -> str:
        """``column`` is one of ``values``, bound as ``:{prefix}…`` entries of ``params``."""
        if self.array_params:
            params[prefix] = list(values)
            return f"{column} = ANY(:{prefix})"
        if not values:
            return "0"  # SQLite's false
        names = []
        for i, value in enumerate(values):
            params[f"{prefix}{i}"] = value
            names.append(f":{prefix}{i}")
        return f"{column} IN ({', '.join(names)})"

    def json_text(self, column: str, key: str) -> str:
        """The text at top-level ``key`` of the JSON text in ``column`` (NULL when absent)."""
        if self.name == "sqlite":
            return f"json_extract({column}, '$.{key}')"
        return f"({column}::jsonb ->> '{key}')"

    def json_string(self, column: str, key: str) -> str:
        """``json_text`` when the value at ``key`` is a JSON string, else NULL (a number
        or an object is not text, though ``->>`` on PostgreSQL would render it as text)."""
        if self.name == "sqlite":
            return (f"CASE json_type({column}, '$.{key}') WHEN 'text' "
                    f"THEN json_extract({column}, '$.{key}') END")
        return (f"CASE jsonb_typeof({column}::jsonb -> '{key}') WHEN 'string' "
                f"THEN {column}::jsonb ->> '{key}' END")

    def json_type(self, column: str, key: str) -> str:
        """The JSON type name at top-level ``key`` ('null' for a JSON null, NULL when absent)."""
        if self.name == "sqlite":
            return f"json_type({column}, '$.{key}')"
        return f"jsonb_typeof({column}::jsonb -> '{key}')"

    def json_array_agg(self, expr: str) -> str:
        """Aggregate: the JSON array text of ``expr`` (an empty group: ``[]`` or NULL)."""
        if self.name == "sqlite":
            return f"json_group_array({expr})"
        return f"json_agg({expr})::text"

    def pick(self, *, sqlite: str, postgres: str) -> str:
        """The fragment for this dialect, where the two have no common spelling."""
        return sqlite if self.name == "sqlite" else postgres


SQLITE = Dialect("sqlite", "IS", "IS NOT", array_params=False)
POSTGRES = Dialect("postgres", "IS NOT DISTINCT FROM", "IS DISTINCT FROM", array_params=True)


def positional(params: list[Any]) -> Bind:
    """A binder appending to a positional parameter list (portable ``?`` marks)."""

    def bind(value: Any) -> str:
        params.append(value)
        return "?"

    return bind


def equals(column: str, value: Any, bind: Bind) -> str:
    """WHERE fragment: ``column`` equal to ``value``, NULL matching NULL.

    Spelled ``IS NULL`` / ``=`` rather than one null-safe comparison:
    PostgreSQL's planner can neither estimate ``IS NOT DISTINCT FROM`` nor
    walk an index with it (docs/postgres.md, "The tenant filter").
    """
    return f"{column} IS NULL" if value is None else f"{column} = {bind(value)}"


def named(params: dict[str, Any], prefix: str = "v") -> Bind:
    """A binder adding ``{prefix}N`` entries to a named parameter dict (``:name`` marks)."""

    def bind(value: Any) -> str:
        name = f"{prefix}{len(params)}"
        params[name] = value
        return f":{name}"

    return bind


@lru_cache(maxsize=4096)
def to_psycopg(statement: str, named_params: bool) -> str:
    """A portable statement in psycopg's parameter style (see module doc)."""
    text = statement.replace("%", "%%")
    if named_params:
        return _NAMED.sub(r"%(\1)s", text)
    return text.replace("?", "%s")


class Driver(Protocol):
    """What an engine's connection layer offers (``SQLiteEngine``, ``PostgresEngine``)."""

    def execute(self, sql: str, params: Params = ...) -> Any: ...
    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...
    def one(self, sql: str, params: Params = ...) -> Any: ...
    def all(self, sql: str, params: Params = ...) -> list[Any]: ...
    def scalar(self, sql: str, params: Params = ...) -> Any: ...


class SQL:
    """Portable statements on one engine's driver (see module doc)."""

    def __init__(self, db: Driver, dialect: Dialect) -> None:
        self.db = db
        self.dialect = dialect
        self._native = dialect.name == "sqlite"

    def text(self, statement: str, params: Params = ()) -> str:
        """``statement`` as this engine's driver takes it."""
        if self._native:
            return statement
        return to_psycopg(statement, isinstance(params, dict))

    def execute(self, statement: str, params: Params = ()) -> Any:
        return self.db.execute(self.text(statement, params), params)

    def executemany(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        self.db.executemany(self.text(statement), rows)

    def one(self, statement: str, params: Params = ()) -> Any:
        return self.db.one(self.text(statement, params), params)

    def all(self, statement: str, params: Params = ()) -> list[Any]:
        return self.db.all(self.text(statement, params), params)

    def scalar(self, statement: str, params: Params = ()) -> Any:
        return self.db.scalar(self.text(statement, params), params)

    def stream(self, statement: str, params: Params = (), *, batch: int = 2000) -> Iterator[Any]:
        """Rows of a large result with flat memory (a server-side cursor on PostgreSQL)."""
        stream = getattr(self.db, "stream", None)
        if stream is None:
            return iter(self.db.execute(self.text(statement, params), params))
        rows: Iterator[Any] = stream(self.text(statement, params), params, batch=batch)
        return rows

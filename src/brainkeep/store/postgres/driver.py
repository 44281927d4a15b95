"""psycopg results and errors in our terms: ``Row``, ``Result``, and ``translate``.

``translate`` is the one place psycopg errors become brainkeep errors (see
engine.py for the contract); every message goes through ``conninfo.scrub``
so a password in the URL never reaches a log or a caller.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
from psycopg.rows import RowMaker
from psycopg_pool import PoolTimeout

from brainkeep.errors import BrainkeepError, Busy, StoreError, Unavailable
from brainkeep.store.postgres.conninfo import describe_target, scrub

# SQLSTATEs a re-run of the whole unit of work may clear.
CONFLICT_STATES = frozenset({"40001", "40P01"})  # serialization_failure, deadlock_detected
LOCK_TIMEOUT_STATE = "55P03"  # lock_not_available (lock_timeout expired)
# Classes meaning "the server is not there for us": connection exception,
# insufficient resources (too many connections), operator intervention (shutdown).
_UNAVAILABLE_CLASSES = ("08", "53", "57")


class Row(tuple[Any, ...]):
    """A result row that behaves like ``sqlite3.Row``.

    ``row["col"]`` by name, ``row[0]`` by position, ``tuple(row)`` and
    iteration give the values, ``row.keys()`` the column names, so the row
    mappers of both engines read it alike.
    """

    _index: dict[str, int]

    def __new__(cls, index: dict[str, int], values: Sequence[Any]) -> Row:
        row = super().__new__(cls, values)
        row._index = index
        return row

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


def row_factory(cursor: psycopg.Cursor[Any]) -> RowMaker[Row]:
    """psycopg row factory building ``Row`` objects (one name index per result)."""
    index = {col.name: i for i, col in enumerate(cursor.description or ())}

    def make(values: Sequence[Any]) -> Row:
        return Row(index, values)

    return make


class Result:
    """The fetched rows of one statement (the connection is already released)."""

    def __init__(self, rows: list[Row], rowcount: int) -> None:
        self._rows = rows
        self._next = 0
        self.rowcount = rowcount

    def fetchone(self) -> Row | None:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[Row]:
        rest, self._next = self._rows[self._next:], len(self._rows)
        return rest

    def __iter__(self) -> Iterator[Row]:
        return iter(self.fetchall())


def translate(exc: Exception, url: str) -> BrainkeepError:
    """The one place psycopg errors become ours (callers ``raise ... from exc``)."""
    target = describe_target(url)
    state = getattr(exc, "sqlstate", None) or ""
    detail = scrub(f"{type(exc).__name__}: {exc}", url) + (f" [SQLSTATE {state}]" if state else "")
    lost = isinstance(exc, psycopg.OperationalError) and not state
    if isinstance(exc, PoolTimeout | psycopg.InterfaceError) or lost or \
            state.startswith(_UNAVAILABLE_CLASSES):
        return Unavailable(
            f"The brain database ({target}) is unreachable.",
            suggestion=(f"Check that PostgreSQL is running and reachable at {target}, and that "
                        "the credentials (URL, PGPASSWORD or ~/.pgpass) are right. Requests "
                        "fail fast while it is down; brainkeep reconnects by itself."),
            detail=detail,
        )
    if state in CONFLICT_STATES:
        return Busy("The write conflicted with another writer and was rolled back.",
                    detail=detail)
    if state == LOCK_TIMEOUT_STATE:
        return Busy("The brain is locked by another writer.", detail=detail)
    return StoreError("The brain database failed.", detail=detail)


def is_conflict(exc: BaseException) -> bool:
    """True for a ``Busy`` raised from a serialization failure or deadlock."""
    cause = exc.__cause__
    return isinstance(exc, Busy) and getattr(cause, "sqlstate", None) in CONFLICT_STATES

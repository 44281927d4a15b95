"""Persistence: the Store protocol and its engines. All SQL lives below this package.

``open(target)`` is the one engine factory: the composition root
(``brain.open_store``), ``migrate`` and ``doctor`` all open a brain through
it, so choosing an engine from a target is written once. Fronts import this
package, never an engine module (``store.sqlite``, ``store.postgres``);
tests/test_architecture.py keeps it so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainkeep.core.ports.store import Store

if TYPE_CHECKING:
    from brainkeep.store.sqlite import SQLiteStore

__all__ = ["SQLiteStore", "Store", "is_database_url", "label_of", "open", "strip_password"]

def __getattr__(name: str) -> Any:
    # The SQLite engine (and numpy under it) loads when first named, not with
    # the package: `Store` is imported for annotations by modules a starting
    # `brainkeep serve` needs before any brain is open.
    if name == "SQLiteStore":
        from brainkeep.store.sqlite import SQLiteStore

        return SQLiteStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_database_url(target: str) -> bool:
    """True when ``target`` names a PostgreSQL database rather than a SQLite file."""
    return target.startswith(("postgresql://", "postgres://"))


def open(  # noqa: A001 - the engine factory is `store.open(target)`
    target: str,
    *,
    pool_min: int = 1,
    pool_max: int = 10,
    synchronous: str = "FULL",
    busy_timeout_ms: int | None = None,
) -> Store:
    """Open (and migrate) the brain at ``target``: a ``postgresql://`` URL or a SQLite path.

    ``pool_min``/``pool_max`` apply to PostgreSQL, ``synchronous`` and
    ``busy_timeout_ms`` to SQLite. Each engine is imported only when chosen,
    so a SQLite brain never loads psycopg.

    Raises:
        Unavailable: The PostgreSQL server cannot be reached (the message names
            host and port, never the password).
    """
    if is_database_url(target):
        from brainkeep.store.postgres import PostgresStore

        return PostgresStore(target, pool_min=pool_min, pool_max=max(pool_min, pool_max))
    from brainkeep.store.sqlite import SQLiteStore

    return SQLiteStore(target, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms)


def strip_password(url: str) -> str:
    """``url`` without its password, as it may be written to a brain's config."""
    from brainkeep.store.postgres.conninfo import strip_password as strip

    return strip(url)


def label_of(target: str) -> str:
    """``target`` as it may be printed: host:port and database, or the path."""
    if not is_database_url(target):
        return target
    from brainkeep.store.postgres.conninfo import describe_target

    return f"postgresql {describe_target(target)}"

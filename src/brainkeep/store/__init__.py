"""Persistence: the Store protocol and its engines. All SQL lives below this package."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainkeep.store.base import Store

if TYPE_CHECKING:
    from brainkeep.store.sqlite import SQLiteStore

__all__ = ["Store", "SQLiteStore", "open_store"]


def __getattr__(name: str) -> Any:
    # The SQLite engine (and numpy under it) loads when first named, not with
    # the package: `Store` is imported for annotations by modules a starting
    # `brainkeep serve` needs before any brain is open.
    if name == "SQLiteStore":
        from brainkeep.store.sqlite import SQLiteStore

        return SQLiteStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_store(path: str) -> Store:
    """Open (and migrate) the brain database at ``path``."""
    from brainkeep.store.sqlite import SQLiteStore

    return SQLiteStore(path)

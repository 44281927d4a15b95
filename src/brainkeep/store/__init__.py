"""Persistence: the Store protocol and its engines. All SQL lives below this package."""

from brainkeep.store.base import Store
from brainkeep.store.sqlite import SQLiteStore

__all__ = ["Store", "SQLiteStore", "open_store"]


def open_store(path: str) -> Store:
    """Open (and migrate) the brain database at ``path``."""
    return SQLiteStore(path)

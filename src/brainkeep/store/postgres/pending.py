"""What the PostgreSQL engine does not implement yet, and the error that says so.

Transitional: the repositories are ported one mixin at a time. A Store
method the PostgreSQL engine lacks raises ``NotPorted`` (a ``StoreError``,
so a front end reports a clear ``internal`` error, never an AttributeError
or a silent wrong answer) naming the method and the SQLite repository module
that holds the original. The contract suite turns ``NotPorted`` into a skip
with that reason (tests/store/conftest.py). Delete this module when
``pending_methods()`` is empty.
"""

from __future__ import annotations

from functools import cache

from brainkeep.errors import StoreError


class NotPorted(StoreError):
    """A Store method that exists on SQLite and not yet on PostgreSQL."""

    def __init__(self, method: str, repository: str) -> None:
        super().__init__(
            f"The PostgreSQL engine does not implement `{method}` yet.",
            suggestion="Use a SQLite brain for this operation until the PostgreSQL engine "
            f"ports the `{repository}` repository.",
            detail=f"repository {repository} (store/sqlite/{repository}.py) not ported",
        )
        self.method = method
        self.repository = repository


@cache
def sqlite_methods() -> dict[str, str]:
    """Public method name -> SQLite repository module, from SQLiteStore's mixins."""
    # Imported here: the SQLite store is only the reference list of methods.
    from brainkeep.store.sqlite import SQLiteStore

    found: dict[str, str] = {}
    for cls in reversed(SQLiteStore.__mro__):
        # SQLiteStore's own methods (search_index, ...) live in the package's __init__.
        module = "__init__" if cls is SQLiteStore else cls.__module__.rsplit(".", 1)[-1]
        for name, value in vars(cls).items():
            if callable(value) and not name.startswith("_"):
                found[name] = module
    return found


def pending_methods(ported: type) -> dict[str, str]:
    """Methods of the SQLite store that ``ported`` (a store class) lacks, by repository."""
    return {name: repo for name, repo in sqlite_methods().items() if not hasattr(ported, name)}

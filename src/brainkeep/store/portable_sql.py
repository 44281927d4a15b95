"""Statements both engines run, written once with ``?`` placeholders.

SQLite binds ``?``, psycopg ``%s``; plain SQL that both dialects accept is
written in ``?`` style and takes the engine's placeholder when executed, so
a repository whose SQL does not differ between engines is written once
(``store/oauth_sql.py``, ``store/verified_heads_sql.py``). A literal ``?`` or
``%`` must not appear in such a statement.
"""

from __future__ import annotations

from typing import Any, Protocol


class Engine(Protocol):
    placeholder: str

    def execute(self, sql: str, params: Any = ...) -> Any: ...
    def one(self, sql: str, params: Any = ...) -> Any: ...
    def all(self, sql: str, params: Any = ...) -> list[Any]: ...


class PortableSQL:
    """``db`` with statements written in ``?`` style, whatever the engine's placeholder."""

    def __init__(self, db: Engine) -> None:
        self.db = db

    def _sql(self, statement: str) -> str:
        mark = self.db.placeholder
        return statement if mark == "?" else statement.replace("?", mark)

    def execute(self, statement: str, params: Any = ()) -> Any:
        return self.db.execute(self._sql(statement), params)

    def one(self, statement: str, params: Any = ()) -> Any:
        return self.db.one(self._sql(statement), params)

    def all(self, statement: str, params: Any = ()) -> list[Any]:
        return self.db.all(self._sql(statement), params)

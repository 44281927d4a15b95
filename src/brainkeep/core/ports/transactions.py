"""Transactions: how a service groups the statements of one request or one write.

Part of the Store protocol (core/ports/store.py). Repository methods never
commit on their own; a service that writes takes this protocol beside the
repositories it writes through (the composites in ``composites.py``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol


class Transactions(Protocol):
    """The engine's transaction and session blocks."""

    def transaction(self) -> AbstractContextManager[None]:
        """One atomic unit of writes; nested, it is a savepoint of the outer one."""
        ...
    def in_transaction(self) -> bool:
        """Whether this thread is inside ``transaction()`` now."""
        ...
    def session(self) -> AbstractContextManager[None]:
        """One request's statements, outside any transaction, on one connection (re-entrant).

        Engines with a connection pool check a connection out once for the
        block instead of once per statement; an embedded engine has nothing
        to share and returns a no-op. It changes no isolation: each statement
        still sees the latest commits.
        """
        ...
    def side_session(self) -> AbstractContextManager[bool]:
        """A ``session()`` for a read run beside another thread's, if one can be had now.

        Yields True inside the session, or False (holding nothing) when the
        engine has no connection to spare without waiting: a pool whose
        connections are held by the threads waiting for this read must not
        make it wait for them. The caller then does the read itself.
        """
        ...

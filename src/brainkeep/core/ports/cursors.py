"""The cursors repository: delta session cursors and the change streams they read.

Streams are keyed on event seq, i.e. commit order.

Part of the Store protocol (core/ports/store.py); no method commits on its own.
"""

from __future__ import annotations

from typing import Protocol

from brainkeep.core.models import (
    Memory,
    Page,
    SessionCursor,
)
from brainkeep.core.scope import ReadScope


class CursorRepository(Protocol):
    """Delta session cursors and the change streams they read, keyed on event seq."""

    # -- session cursors -------------------------------------------------------
    def get_session_cursor(
        self, source_id: str, client_id: str, session_id: str
    ) -> SessionCursor | None: ...
    def put_session_cursor(self, cursor: SessionCursor) -> None: ...
    def gc_session_cursors(self, idle_before: str, *, keep_per_client: int = 1000) -> int: ...

    # -- change streams (commit order) -----------------------------------------
    def event_head(self) -> int: ...
    def seq_before_ts(self, ts: str) -> int: ...
    def pages_changed_after_seq(
        self, source_id: str, after_seq: int, *, upto_seq: int, include_private: bool, limit: int
    ) -> list[tuple[int, Page]]: ...
    def facts_created_after_seq(
        self,
        source_id: str,
        after_seq: int,
        *,
        upto_seq: int,
        now: str,
        scope: ReadScope,
        limit: int,
    ) -> list[tuple[int, Memory]]: ...

"""The event log: append-only and hash-chained, plus the scans the one verifier runs.

Part of the Store protocol (core/ports/store.py); no method commits on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from brainkeep.core.integrity_rows import (
    AclState,
    DelegationState,
    EventDigest,
    MemoryCheck,
    MemoryState,
    PageCheck,
    PageState,
    Vanished,
    VerifiedCheckpoint,
)
from brainkeep.core.memory.models import (
    AuditEvent,
    ChainRow,
    FactWrite,
)
from brainkeep.core.models import (
    Event,
    NewEvent,
)
from brainkeep.core.scope import ReadScope


class EventLog(Protocol):
    """The append-only, hash-chained event log and the integrity scans the one verifier runs."""

    # -- events ----------------------------------------------------------------
    def append_event(self, event: NewEvent, now: str) -> Event: ...
    def iter_events(self, *, after_seq: int = 0, batch: int = 2000) -> Iterator[Event]: ...
    def events_for(self, subject_type: str, subject_id: str) -> list[Event]: ...
    def recorded_hashes(self, subject_type: str) -> dict[str, str]: ...
    def iter_page_contents(self) -> Iterator[tuple[str, str, str, str]]: ...
    # Verification scans (core/verify.py): memory chains, logged hard deletes
    # and logged inserts, so a row removed behind the server's back is found.
    # ``scope`` (grants live at ``now``): only rows its reader may see, for
    # what Verify reports; the walk itself reads every row.
    def memory_chain_rows(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> list[ChainRow]: ...
    def hard_deleted_memories(self) -> list[tuple[str, str, str | None]]: ...
    def logged_memory_inserts(
        self, agent_id: str | None, thread_id: str | None
    ) -> list[tuple[str, str]]: ...
    # Tamper scans (core/verify.py, store/sqlite/integrity.py): each row beside
    # the newest hashes its events recorded, streamed; the chain head.
    def event_at(self, seq: int) -> Event | None: ...
    def chain_tip(self) -> tuple[int, str] | None: ...
    def state_marker_seq(self) -> int | None: ...
    # ``uuids``: only those rows (the full walk re-reads a row its lean check did not accept).
    def iter_memory_states(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None,
        uuids: list[str] | None = None,
    ) -> Iterator[MemoryState]: ...
    # The full walk's lean scans (core/integrity_rows.py): hash inputs rendered by the engine.
    def iter_event_digests(self, *, after_seq: int = 0) -> Iterator[EventDigest]: ...
    def iter_memory_checks(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None
    ) -> Iterator[MemoryCheck]: ...
    def iter_page_checks(self) -> Iterator[PageCheck]: ...
    # What another thread or process opens to read this same database (a file
    # path or a database URL, password included: never log it); None when
    # nothing else would see it (SQLite ``:memory:``). The full walk then runs
    # its two halves on one thread (core/verify_halves.py).
    def reopen_target(self) -> str | None: ...
    def iter_vanished_memories(
        self, agent_id: str | None, thread_id: str | None
    ) -> Iterator[str]: ...
    # ``ids``: only those rows (an incremental verify checks what new events touched).
    def iter_page_states(self, ids: list[str] | None = None) -> Iterator[PageState]: ...
    def iter_vanished_pages(self) -> Iterator[Vanished]: ...
    def iter_acl_states(self, ids: list[str] | None = None) -> Iterator[AclState]: ...
    def iter_delegation_states(
        self, ids: list[str] | None = None
    ) -> Iterator[DelegationState]: ...
    def iter_chain_states_near(
        self, anchors: list[tuple[str, str | None, int]]
    ) -> Iterator[tuple[MemoryState, str | None]]: ...
    # Heads verify walks proved (``verify_checkpoints``, not chained), newest seq first.
    def verified_checkpoints(self, *, limit: int = 50) -> list[VerifiedCheckpoint]: ...
    def record_verified_checkpoint(self, checkpoint: VerifiedCheckpoint) -> None: ...
    def forget_verified_checkpoints(self) -> int: ...
    def iter_vanished_grants(self) -> Iterator[Vanished]: ...

    # -- verification and audit ------------------------------------------------
    # (the chain scans Verify needs are on ``Store``: core/verify.py uses them)
    # ``scope`` (grants live at ``now``): only what its reader may see.
    def memory_audit_events(
        self, agent_id: str | None, thread_id: str | None, *,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> Iterator[AuditEvent]: ...
    def fact_key_writes(
        self, agent_id: str | None, thread_id: str | None, fact_key: str, *,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> list[FactWrite]: ...

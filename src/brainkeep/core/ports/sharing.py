"""The sharing repository: ACLs, delegations, checkpoints and branches.

Part of the Store protocol (core/ports/store.py); no method commits on its own.
"""

from __future__ import annotations

from typing import Protocol

from brainkeep.core.memory.models import (
    Acl,
    Checkpoint,
    Delegation,
    Grant,
)
from brainkeep.core.models import (
    Memory,
)
from brainkeep.core.scope import ReadScope


class SharingRepository(Protocol):
    """Who was granted what (ACLs, delegations), and thread snapshots (checkpoints)."""

    # -- permissions -----------------------------------------------------------
    def grants_for(self, memory: Memory, agent_id: str, now: str) -> list[Grant]: ...
    def upsert_acl(
        self,
        *,
        acl_id: str,
        memory_id: int,
        grantee: str,
        permission: str,
        granted_by: str,
        now: str,
        expires_at: str | None,
    ) -> str: ...
    def set_memory_scope(self, memory_id: int, scope: str, visibility: str, now: str, *,
                        by_grant: bool = False) -> None: ...
    def has_live_acl(self, memory_id: int, now: str) -> bool: ...
    def list_acls(self, *, acl_id: str | None = None, memory_uuid: str | None = None,
                        grantee: str | None = None) -> list[Acl]: ...
    def list_delegations(self, *, delegation_id: str | None = None,
                               owner: str | None = None,
                               delegate: str | None = None) -> list[Delegation]: ...
    def delete_acl(self, acl_id: str) -> bool: ...
    def delegation_tree(self, delegation_id: str) -> list[str]: ...
    def delete_delegations(self, delegation_ids: list[str]) -> None: ...
    def insert_delegation(
        self, delegation: Delegation, memory_ids: list[int], tags: list[str]
    ) -> None: ...

    # -- checkpoints -----------------------------------------------------------
    def insert_checkpoint(self, checkpoint: Checkpoint) -> Checkpoint: ...
    def get_checkpoint(self, checkpoint_id: str) -> Checkpoint | None: ...
    def branch_head(
        self, agent_id: str, thread_id: str, branch_name: str
    ) -> Checkpoint | None: ...
    def branch_checkpoints(
        self, agent_id: str, thread_id: str, branch_name: str, *, after_seq: int = 0
    ) -> list[Checkpoint]: ...
    def latest_checkpoint_before(
        self, agent_id: str, thread_id: str, branch_name: str, ts: str
    ) -> Checkpoint | None: ...
    def thread_memories(
        self, source_id: str, agent_id: str, thread_id: str, *, at: str, as_of: bool,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> list[Memory]: ...
    def max_event_seq(self) -> int: ...
    def count_memory_events(self, uuids: list[str], *, max_seq: int | None,
                                  max_ts: str | None) -> int: ...

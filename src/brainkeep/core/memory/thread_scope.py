"""The reader of Replay, Verify and TrajectoryAudit, and what it may see.

These RPCs carry an ``agent_id`` but no ``org_id``, so their reader is the
agent in the tenant without an org (docs/grpc.md). They report on chains and
event logs that cross tenants and owners (one agent's chain holds its rows
of every org), so each applies the one read scope (``core/scope.py``) to what
it *reports*, never to what it *checks*: Verify still walks every row of a
chain, because a hash link needs its hidden neighbour.

"All agents" (``agent_id`` omitted, Verify and TrajectoryAudit only) is a
tenant-wide view: every agent's memories of the no-org tenant, none of
another org's.
"""

from __future__ import annotations

from collections.abc import Callable

from brainkeep.core.memory import grants
from brainkeep.core.memory.context import MnemoContext
from brainkeep.core.models import Memory
from brainkeep.core.scope import ReadScope, can_see


def reader_scope(agent_id: str | None) -> ReadScope:
    """The read scope of a thread RPC naming ``agent_id`` (validated), or none.

    With no agent the view is the whole no-org tenant: ``trusted`` here means
    "every row of the tenant" (the rule's only tenant-wide form), so private
    and quarantined rows of that tenant count, and no other org's ever do.
    """
    if agent_id is None:
        return ReadScope(org_id=None, trusted=True)
    return ReadScope(org_id=None, reader=agent_id)


def memory_filter(ctx: MnemoContext, scope: ReadScope, now: str) -> Callable[[Memory], bool]:
    """By-id visibility of one memory (ownership, grants, tenant, quarantine)."""
    store = ctx.store

    def sees(memory: Memory) -> bool:
        return can_see(
            memory, scope, lambda: grants.holds(store, memory, scope, "read", now),
            lambda: grants.any_live_acl(store, memory, now),
        )

    return sees


def record_filter(ctx: MnemoContext, scope: ReadScope, agent_id: str | None,
                  thread_id: str | None, *, created_before: str | None = None
                  ) -> Callable[[str], bool]:
    """Whether the reader may see the memory with a given uuid, for the verifier.

    Rows of the slice are judged by the store's compiled rule (one query). A
    uuid with no row (removed behind the server's back, found through its
    logged insert) is judged by that insert's tenant and owner.
    """
    now = ctx.clock.now_ts()
    store = ctx.store
    shown = {r.uuid for r in store.memory_chain_rows(
        agent_id, thread_id, created_before=created_before, scope=scope, now=now)}
    stored = {r.uuid for r in store.memory_chain_rows(
        agent_id, thread_id, created_before=created_before)}

    def visible(uuid: str) -> bool:
        if uuid in shown:
            return True
        if uuid in stored or store.get_memory_by_uuid(uuid) is not None:
            return False  # a stored row the compiled rule did not return
        inserts = [e for e in store.events_for("memory", uuid) if e.kind == "memory.insert"]
        if not inserts:
            return False
        payload = inserts[0].payload
        owner_ok = scope.trusted or (bool(scope.reader) and payload.get("owner") == scope.reader)
        return payload.get("org_id") == scope.org_id and owner_ok

    return visible

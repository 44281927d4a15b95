"""Contract: the thread and audit scans narrowed to a read scope (``scope=``, ``now=``).

Replay, Verify and TrajectoryAudit report through these (core/memory/thread_scope.py);
without ``scope`` each scan returns every row, as the verifier needs.
"""

from __future__ import annotations

import pytest

from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.ports.store import Store
from brainkeep.core.scope import ReadScope
from tests.store.contract import insert_memory, ts

OWNER = ReadScope(org_id=None, reader="owner")
TENANT = ReadScope(org_id=None, trusted=True)


def remember(store: Store, text: str, at: float, *, agent: str = "owner",
             **fields: object) -> Memory:
    draft = MemoryDraft(text=text, agent_id=agent, origin="grpc", thread_id="t1",
                        metadata={"city": text}, **fields)  # type: ignore[arg-type]
    return insert_memory(store, draft, ts(at))


@pytest.fixture
def rows(store: Store) -> dict[str, Memory]:
    return {
        "mine": remember(store, "mine", 1, scope="private"),
        "acme": remember(store, "acme", 2, scope="public", org_id="acme"),
        "bobs": remember(store, "bobs", 3, agent="bob", scope="private"),
        "open": remember(store, "open", 4, agent="bob", scope="public"),
    }


def test_chain_rows_and_thread_memories_keep_what_the_scope_sees(
    store: Store, rows: dict[str, Memory]
) -> None:
    def uuids(found: list) -> list[str]:
        return [r.uuid for r in found]

    assert len(store.memory_chain_rows("owner", None)) == 2  # unscoped: every row
    assert uuids(store.memory_chain_rows("owner", None, scope=OWNER, now=ts(9))) == [
        rows["mine"].uuid]
    assert sorted(uuids(store.memory_chain_rows(None, None, scope=TENANT, now=ts(9)))) == sorted(
        rows[k].uuid for k in ("mine", "bobs", "open"))
    assert uuids(store.thread_memories("default", "owner", "t1", at=ts(9), as_of=False,
                                             scope=OWNER, now=ts(9))) == [rows["mine"].uuid]
    assert len(store.thread_memories("default", "owner", "t1", at=ts(9),
                                           as_of=False)) == 2


def test_audit_scans_keep_what_the_scope_sees(store: Store,
                                              rows: dict[str, Memory]) -> None:
    mine = list(store.memory_audit_events("owner", None, scope=OWNER, now=ts(9)))
    assert [e.subject_id for e in mine] == [rows["mine"].uuid]
    assert len(list(store.memory_audit_events("owner", None))) == 2
    tenant = list(store.memory_audit_events(None, None, scope=TENANT, now=ts(9)))
    assert rows["acme"].uuid not in {e.subject_id for e in tenant} and len(tenant) == 3
    # bob's private row is hidden from another agent's view, his public one is not
    other = ReadScope(org_id=None, reader="carol")
    assert [w.uuid for w in store.fact_key_writes(None, None, "city", scope=other,
                                                    now=ts(9))] == [rows["open"].uuid]
    assert len(store.fact_key_writes(None, None, "city")) == 4

"""remember's duplicate check walks the memories_dedup index on both engines.

With ``entity_slug IS NOT DISTINCT FROM ?`` PostgreSQL could not use the
index for the entity (it filtered every row of the source: 37 ms a
`remember` at 400K memories); ``equals`` spells it ``=`` / ``IS NULL``.
"""

from __future__ import annotations

from typing import Any

import pytest

from brainkeep.core.models import MemoryDraft
from brainkeep.core.ports.store import Store
from brainkeep.core.scope import ReadScope
from tests.store.conftest import Engine
from tests.store.contract import insert_memory, ts

REMOTE = ReadScope()


def _plan(engine: Engine, store: Store, sql: str, params: Any) -> str:
    db: Any = store.db  # type: ignore[attr-defined]
    if engine.name == "sqlite":
        return " | ".join(str(r[3]) for r in db.all("EXPLAIN QUERY PLAN " + sql, params))
    with store.transaction():
        db.execute("SET LOCAL enable_seqscan = off")  # a tiny table: the choice, not the cost
        return "\n".join(str(r[0]) for r in store.sql.all(  # type: ignore[attr-defined]
            "EXPLAIN " + sql, params))


@pytest.mark.parametrize("entity", ["people/alice", None])
def test_the_duplicate_check_reads_the_dedup_index(engine: Engine, store: Store,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   entity: str | None) -> None:
    for i in range(200):
        insert_memory(store, MemoryDraft(text=f"fact {i}",
                                         entity_slug=entity if i % 2 else f"people/p{i}"), ts(i))
    store.optimize()  # planner statistics, as a serving process has them
    seen: list[tuple[str, Any]] = []
    sql: Any = store.sql  # type: ignore[attr-defined]
    real = sql.one
    monkeypatch.setattr(sql, "one", lambda q, p=(): seen.append((q, p)) or real(q, p))
    found = store.find_active_duplicate("default", entity, "fact 3", ts(30), REMOTE)
    monkeypatch.undo()
    assert found is not None and found.entity_slug == entity
    (query, params), = seen
    plan = _plan(engine, store, query, params)
    assert "memories_dedup" in plan, plan
    if engine.name == "postgres":
        condition = next(line for line in plan.splitlines() if "Index Cond" in line)
        assert "entity_slug" in condition, plan

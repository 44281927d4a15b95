"""The verifier scan whose SQL is PostgreSQL's own (the rest: store/sql/integrity.py)."""

from __future__ import annotations

from collections.abc import Iterator

from brainkeep.core.integrity_rows import MemoryState
from brainkeep.store.sql.dialect import POSTGRES
from brainkeep.store.sql.integrity import IntegrityMixin, memory_record, memory_state

_DIR = {"> a.id": "ASC", "< m.id": "DESC"}


def _chain_neighbour(alias: str, agent: str, thread: str, compare: str, pick: str) -> str:
    """The row before/after one in its (agent, thread) chain; each arm keeps its index."""
    base = f"FROM memories {alias} WHERE {alias}.agent_id = {agent} AND {alias}.id {compare}"
    return (f"CASE WHEN {thread} IS NULL THEN (SELECT {pick} {base} "
            f"AND {alias}.thread_id IS NULL ORDER BY {alias}.id {_DIR[compare]} LIMIT 1) "
            f"ELSE (SELECT {pick} {base} AND {alias}.thread_id = {thread} "
            f"ORDER BY {alias}.id {_DIR[compare]} LIMIT 1) END")


class PostgresIntegrityMixin(IntegrityMixin):
    """``iter_chain_states_near``: anchors as arrays (``unnest``), neighbours per arm."""

    def iter_chain_states_near(
        self, anchors: list[tuple[str, str | None, int]]
    ) -> Iterator[tuple[MemoryState, str | None]]:
        """Rows at and just after each (agent, thread, row id), in chain order.

        Each comes with the ``content_hash`` of the row before it in its chain
        (None: it is the first), so an incremental verify checks a touched row
        and its successor's link without walking the chain.
        """
        rows = self.sql.stream(
            "WITH a AS (SELECT * FROM unnest(CAST(:agents AS TEXT[]), CAST(:threads AS TEXT[]), "
            "CAST(:ids AS BIGINT[])) AS a(agent, thread, id)), ids AS (SELECT id FROM a UNION "
            "SELECT " + _chain_neighbour("n", "a.agent", "a.thread", "> a.id", "n.id")
            + f" FROM a) SELECT m.*, {memory_record(POSTGRES)}, "
            + _chain_neighbour("p", "m.agent_id", "m.thread_id", "< m.id", "p.content_hash")
            + " AS bk_previous FROM memories m WHERE m.id IN (SELECT id FROM ids) "
            "ORDER BY m.agent_id, m.thread_id NULLS FIRST, m.id",
            {"agents": [a for a, _, _ in anchors], "threads": [t for _, t, _ in anchors],
             "ids": [i for _, _, i in anchors]},
        )
        for row in rows:
            yield memory_state(row), row["bk_previous"]

"""The verifier scan whose SQL is SQLite's own (the rest: store/sql/integrity.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from brainkeep.core.integrity_rows import MemoryState
from brainkeep.store.sql.dialect import SQLITE
from brainkeep.store.sql.integrity import IntegrityMixin, memory_record, memory_state


class SQLiteIntegrityMixin(IntegrityMixin):
    """``iter_chain_states_near``: anchors as one JSON parameter, neighbours by ``IS``."""

    def iter_chain_states_near(
        self, anchors: list[tuple[str, str | None, int]]
    ) -> Iterator[tuple[MemoryState, str | None]]:
        """Rows at and just after each (agent, thread, row id), in chain order.

        Each comes with the ``content_hash`` of the row before it in its chain
        (None: it is the first), so an incremental verify checks a touched row
        and its successor's link without walking the chain.
        """
        near = json.dumps([[a, t, i] for a, t, i in anchors])
        rows = self.sql.stream(
            "WITH a AS (SELECT json_extract(value, '$[0]') AS agent, "
            "json_extract(value, '$[1]') AS thread, json_extract(value, '$[2]') AS id "
            "FROM json_each(:near)), ids AS (SELECT id FROM a UNION "
            "SELECT (SELECT MIN(n.id) FROM memories n WHERE n.agent_id = a.agent "
            "AND n.thread_id IS a.thread AND n.id > a.id) FROM a) "
            f"SELECT m.*, {memory_record(SQLITE)}, "
            "(SELECT p.content_hash FROM memories p WHERE p.agent_id = m.agent_id "
            "AND p.thread_id IS m.thread_id AND p.id < m.id ORDER BY p.id DESC LIMIT 1) "
            "AS bk_previous FROM memories m WHERE m.id IN (SELECT id FROM ids) "
            "ORDER BY m.agent_id, m.thread_id, m.id",
            {"near": near},
        )
        for row in rows:
            yield memory_state(row), row["bk_previous"]

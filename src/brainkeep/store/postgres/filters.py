"""The recall filters (``store/sql/filters.py``) in psycopg's marks, for engine code.

``keyword.py`` writes its statements in psycopg's style; the fragment it
joins is the shared one in PostgreSQL dialect, translated
(``to_psycopg``, cached per text). Code running through ``self.sql`` takes
``store/sql/filters.py`` directly.
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.retrieval import FactFilter
from brainkeep.store.sql import filters
from brainkeep.store.sql.dialect import POSTGRES, to_psycopg


def fact_filter_sql(source_id: str, filt: FactFilter, alias: str = "") -> tuple[str, list[Any]]:
    """WHERE clauses (``%s`` marks) of the facts arm (``filters.fact_filter_sql``)."""
    where, params = filters.fact_filter_sql(source_id, filt, alias, dialect=POSTGRES)
    return to_psycopg(where, False), params


def memory_filter_sql(filt: MemoryFilter) -> tuple[str, dict[str, Any]]:
    """WHERE fragment (``%(name)s`` marks) of gRPC recall (``filters.memory_filter_sql``)."""
    where, params = filters.memory_filter_sql(filt, POSTGRES)
    return to_psycopg(where, True), params

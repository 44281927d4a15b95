"""Column lists for hot reads: every column the row mappers use, never ``tsv``.

``SELECT *`` on PostgreSQL also returns the generated ``tsv`` column, a
tsvector sent as text (often longer than the text it indexes) and parsed
into a string nobody reads. Reads on the query path list their columns
instead. The list is the fields ``store/rows.memory_from_row`` reads
(a test checks they match the mapper).
"""

from __future__ import annotations

MEMORY_FIELDS = (
    "id", "uuid", "source_id", "text", "normalized_text", "kind", "entity_slug", "visibility",
    "provenance", "session_id", "confidence", "valid_from", "valid_until", "expired_at",
    "expired_reason", "superseded_by", "created_at", "updated_at", "origin", "agent_id",
    "org_id", "thread_id", "memory_type", "scope", "importance", "tags", "metadata",
    "source_type", "source_ref", "created_by", "decay_rate", "access_count",
    "last_accessed_at", "consolidation_state", "quarantined", "content_hash", "prev_hash",
    "version", "deleted_at", "delete_strategy", "redacted_at", "shared_by_grant",
)


def memory_columns(alias: str = "") -> str:
    """``MEMORY_FIELDS`` as a select list, qualified by ``alias`` (``"m"``) when given."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(prefix + name for name in MEMORY_FIELDS)

"""The brain's meta key/values and `doctor`'s row counts, for both engines."""

from __future__ import annotations

from brainkeep.store.sql.dialect import SQL

# Row counts `doctor` shows, by name.
_COUNTS = {
    "pages": "SELECT COUNT(*) FROM pages WHERE deleted_at IS NULL",
    "pages_deleted": "SELECT COUNT(*) FROM pages WHERE deleted_at IS NOT NULL",
    "links": "SELECT COUNT(*) FROM links",
    "aliases": "SELECT COUNT(*) FROM page_aliases",
    "timeline_entries": "SELECT COUNT(*) FROM timeline_entries",
    "chunks": "SELECT COUNT(*) FROM chunks",
    "memories": "SELECT COUNT(*) FROM memories",
    "memories_active": "SELECT COUNT(*) FROM memories WHERE expired_at IS NULL "
    "AND deleted_at IS NULL",
    "events": "SELECT COUNT(*) FROM events",
}


class MetaMixin:
    """Meta values and row counts over ``self.sql``."""

    sql: SQL

    def get_meta(self, key: str) -> str | None:
        value = self.sql.scalar("SELECT value FROM meta WHERE key = ?", (key,))
        return None if value is None else str(value)

    def set_meta(self, key: str, value: str) -> None:
        self.sql.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def counts(self) -> dict[str, int]:
        """Row counts for `doctor`, in one statement (one round trip on a server)."""
        row = self.sql.one("SELECT " + ", ".join(f"({sql}) AS {name}"
                                                 for name, sql in _COUNTS.items()))
        assert row is not None
        return {name: int(row[name]) for name in _COUNTS}

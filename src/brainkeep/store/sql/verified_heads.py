"""Heads that verify walks proved (``verify_checkpoints``, migration 0014), for both engines.

``core/verify.py`` starts an incremental walk from the newest of them that
still matches the log. The statements are the same on SQLite and PostgreSQL
(``store/sql/dialect.py``).
"""

from __future__ import annotations

from brainkeep.core.integrity_rows import VerifiedCheckpoint
from brainkeep.store.sql.dialect import SQL


class VerifiedHeadsMixin:
    """Verified checkpoints; over ``self.sql``."""

    sql: SQL

    def verified_checkpoints(self, *, limit: int = 50) -> list[VerifiedCheckpoint]:
        """The newest ``limit`` heads verify walks proved, newest seq first."""
        rows = self.sql.all(
            "SELECT seq, hash, verified_at, mode, from_seq, key_fingerprint, signature "
            "FROM verify_checkpoints ORDER BY seq DESC, id DESC LIMIT ?", (limit,)
        )
        return [VerifiedCheckpoint(int(r["seq"]), r["hash"], r["verified_at"], r["mode"],
                                   int(r["from_seq"]), r["key_fingerprint"], r["signature"])
                for r in rows]

    def record_verified_checkpoint(self, checkpoint: VerifiedCheckpoint) -> None:
        """Remember a proved head (inside ``transaction()``)."""
        c = checkpoint
        self.sql.execute(
            "INSERT INTO verify_checkpoints (seq, hash, verified_at, mode, from_seq, "
            "key_fingerprint, signature) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (c.seq, c.hash, c.verified_at, c.mode, c.from_seq, c.key_fingerprint, c.signature),
        )

    def forget_verified_checkpoints(self) -> int:
        """Drop every proved head (a full walk found a break); returns how many."""
        return int(self.sql.execute("DELETE FROM verify_checkpoints").rowcount)

"""SQLite's purge mechanics (``store/sql/erasure.py`` hooks): FTS5, the WAL, ANN bases.

Deleting a row is not erasing its bytes. Three places keep them after the
transaction that redacts or deletes a memory:

* **FTS5 segments.** A delete from an FTS5 table is recorded as a delete
  marker in a new segment; the old segment keeps the term until a merge
  joins the two. ``purge_text_indexes`` runs ``optimize`` on both memory
  indexes (keyword and trigram), which rewrites each into one segment
  without the deleted entries, inside the forget's transaction.
* **Free pages and the WAL.** Every connection runs with
  ``secure_delete = ON`` (engine.py), so freed cells and pages are zeroed;
  the write-ahead log still holds old page images until a checkpoint
  copies them back and ``TRUNCATE`` empties it (``scrub_files``).
* **Sparse postings** (migrations 0017, 0019): the learned-sparse arm's
  delta postings and compacted blocks keep a memory's postings after a
  trigger drops its sparse vector; the purge deletes them from both.
* **ANN base files** (``ann_files``): an immutable HNSW graph keeps a
  deleted vector's bytes (usearch's ``remove`` marks the slot only, and an
  incremental build copies the graph). A tombstone makes the vector
  unreachable at once; ``scrub_files`` then rebuilds, from scratch and from
  the live rows, every memory base whose row table names a purged memory,
  and the publish step unlinks the old generation.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from brainkeep.core.retrieval import MEMORY
from brainkeep.store.sqlite import sparse_blocks
from brainkeep.store.sqlite.ann_files import BaseFiles, BaseMeta, vectors_dir
from brainkeep.store.sqlite.ann_index import build_base
from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.vector_index import SQLiteVectorRows

log = logging.getLogger("brainkeep.store.erasure")

_MEMORY_INDEXES = ("memories_fts", "memories_grep")


class ErasureEngineMixin:
    """The SQLite half of ``ErasureRepository``; expects ``self.db``."""

    db: SQLiteEngine

    def _keyword_copies(self, memory_ids: Sequence[int]) -> int:
        listed = ",".join(str(int(i)) for i in memory_ids)  # ints, not caller text
        return int(self.db.scalar(
            f"SELECT COUNT(*) FROM memories_fts WHERE rowid IN ({listed})") or 0)

    def purge_text_indexes(self, memory_ids: Sequence[int]) -> None:
        for table in _MEMORY_INDEXES:
            self.db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
        if memory_ids:
            # Postings outlive their sparse vector (the delta until
            # `brainkeep embed` prunes it, the blocks until their next build);
            # their term ids spell the text's words. Keyed by term first, so
            # this scans the memory postings once.
            listed = ",".join(str(int(i)) for i in memory_ids)
            self.db.execute("DELETE FROM sparse_postings WHERE kind = 'memory' "
                            f"AND item_id IN ({listed})")
            sparse_blocks.erase_items(self.db, MEMORY, memory_ids)

    def scrub_files(self, memory_ids: Sequence[int]) -> dict[str, Any]:
        rebuilt, rows = self._rebuild_bases(memory_ids)
        busy, _, _ = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        # busy: a reader still holds an old snapshot, so the log could not be
        # emptied now; its frames are overwritten as the log is reused.
        return {"engine": "sqlite", "text_indexes_merged": True,
                "wal_truncated": not busy, "ann_bases_rebuilt": rebuilt,
                "ann_base_rows": rows}

    def _rebuild_bases(self, memory_ids: Sequence[int]) -> tuple[int, int]:
        directory = vectors_dir(self.db.path)
        if directory is None or not directory.is_dir() or not memory_ids:
            return 0, 0
        wanted = np.asarray(sorted({int(i) for i in memory_ids}), dtype=np.int64)
        rebuilt = named = 0
        for meta_path in sorted(directory.glob("*.memory.*.json")):
            try:
                meta = BaseMeta(**json.loads(meta_path.read_text()))
            except (OSError, ValueError, TypeError):
                continue  # not a base's metadata (or half-written): nothing to search
            files = BaseFiles(directory, source_id=meta.source_id, kind=meta.kind,
                              model=meta.model, dim=meta.dim)
            if files.read_meta() != meta:
                continue
            items = np.load(directory / meta.rows_file, mmap_mode="r")[:, 1]
            hits = int(np.isin(items, wanted).sum())
            if not hits:
                continue
            if build_base(SQLiteVectorRows(self.db), files, full=True) is None:
                log.warning("ANN base %s not rebuilt after a purge: another process holds "
                            "its build lock (its next build drops the vector)", meta_path)
                continue
            rebuilt += 1
            named += hits
        return rebuilt, named

-- 0019: the learned-sparse arm's compacted postings (store/sqlite/sparse_index.py).
-- One row per (kind, term) holding every posting of that term as two packed
-- arrays (little-endian int32 item ids, uint16 impacts), so a query reads
-- one row per term and sums in numpy instead of one SQL row per posting.
-- Built from sparse_vectors; postings written since the last build stay in
-- sparse_postings (the delta) until the next build folds them in. Block
-- entries of rows gone or re-encoded since only raise a score's bound: every
-- candidate is re-scored from sparse_vectors before it is returned.
CREATE TABLE sparse_blocks (
  kind TEXT NOT NULL,
  term INTEGER NOT NULL,
  items BLOB NOT NULL,
  impacts BLOB NOT NULL,
  PRIMARY KEY (kind, term)
) WITHOUT ROWID;

-- Per kind: postings in the blocks and in the delta (the build is due when
-- the delta grows past a share of the blocks), and a generation bumped by
-- every write of postings, so a build read outside the write lock commits
-- only if nothing was written meanwhile.
CREATE TABLE sparse_block_state (
  kind TEXT PRIMARY KEY CHECK (kind IN ('chunk', 'memory')),
  blocked INTEGER NOT NULL DEFAULT 0,
  delta INTEGER NOT NULL DEFAULT 0,
  generation INTEGER NOT NULL DEFAULT 0
);
INSERT INTO sparse_block_state (kind, delta)
  SELECT k.kind, (SELECT COUNT(*) FROM sparse_postings p WHERE p.kind = k.kind)
  FROM (SELECT 'chunk' AS kind UNION ALL SELECT 'memory') k;

-- 0017: the learned-sparse arm (SPLADE-tiny, docs/search.md "Learned sparse").
-- One sparse vector per page chunk or memory, tagged with the model that
-- made it: its non-zero vocabulary terms and their impacts (weight x 100,
-- rounded), as little-endian uint16 term ids followed by uint16 impacts.
CREATE TABLE sparse_vectors (
  kind TEXT NOT NULL CHECK (kind IN ('chunk', 'memory')),
  item_id INTEGER NOT NULL,
  source_id TEXT NOT NULL,
  -- chunk rows: the page, so hits group per page without a join.
  page_id INTEGER,
  -- Visibility when encoded; a pre-filter only (reads re-check).
  private INTEGER NOT NULL DEFAULT 0,
  model TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  terms BLOB NOT NULL,
  PRIMARY KEY (kind, item_id)
);
CREATE INDEX sparse_vectors_page ON sparse_vectors (page_id) WHERE page_id IS NOT NULL;

-- The impact-ordered inverted index: a term's postings read best first, so
-- top-k stops long before the end of a common term's list (threshold
-- algorithm, store/sqlite/sparse_index.py). Derived from sparse_vectors and
-- checked against it on every read: postings of a row that is gone are
-- skipped there and pruned by `brainkeep embed` (a trigger would need a
-- second index over every posting to find them).
CREATE TABLE sparse_postings (
  kind TEXT NOT NULL,
  term INTEGER NOT NULL,
  impact INTEGER NOT NULL,
  item_id INTEGER NOT NULL,
  PRIMARY KEY (kind, term, impact, item_id)
) WITHOUT ROWID;

-- Triggers keep vectors in step with every write path, as 0005 does for
-- embeddings: text that is gone, soft-deleted, expired or redacted is not found.
CREATE TRIGGER chunks_drop_sparse AFTER DELETE ON chunks
BEGIN
  DELETE FROM sparse_vectors WHERE kind = 'chunk' AND item_id = OLD.id;
END;

CREATE TRIGGER pages_soft_delete_drops_sparse AFTER UPDATE OF deleted_at ON pages
WHEN NEW.deleted_at IS NOT NULL AND OLD.deleted_at IS NULL
BEGIN
  DELETE FROM sparse_vectors WHERE kind = 'chunk' AND page_id = NEW.id;
END;

CREATE TRIGGER memories_retire_sparse AFTER UPDATE OF expired_at, deleted_at, text ON memories
WHEN NEW.expired_at IS NOT NULL OR NEW.deleted_at IS NOT NULL OR NEW.text IS NOT OLD.text
BEGIN
  DELETE FROM sparse_vectors WHERE kind = 'memory' AND item_id = NEW.id;
END;

CREATE TRIGGER memories_drop_sparse AFTER DELETE ON memories
BEGIN
  DELETE FROM sparse_vectors WHERE kind = 'memory' AND item_id = OLD.id;
END;

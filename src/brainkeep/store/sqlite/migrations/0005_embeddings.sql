-- 0005: embeddings (docs/search.md). One float32 vector per page chunk or
-- memory, tagged with the model that made it; search runs on an in-memory
-- numpy matrix that each process keeps in sync with this table.
--
-- `id` is AUTOINCREMENT so it never repeats: a reader that has loaded every
-- row up to id N only needs rows with id > N, plus the tombstones written
-- since it last looked, to catch up with writes from any process.
CREATE TABLE embeddings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('chunk', 'memory')),
  item_id INTEGER NOT NULL,
  source_id TEXT NOT NULL,
  -- chunk rows: the page, so hits group per page without a join.
  page_id INTEGER,
  -- Visibility when embedded; a pre-filter only (reads re-check the page or
  -- memory). A page's chunks are rewritten whenever the page is.
  private INTEGER NOT NULL DEFAULT 0,
  model TEXT NOT NULL,
  dim INTEGER NOT NULL,
  -- sha256 of the embedded text: an unchanged chunk of a rewritten page
  -- reuses its vector instead of running the model again.
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  UNIQUE (kind, item_id)
);
CREATE INDEX embeddings_scan ON embeddings (source_id, kind, model, id);
CREATE INDEX embeddings_reuse ON embeddings (text_hash, model);
CREATE INDEX embeddings_page ON embeddings (page_id) WHERE page_id IS NOT NULL;

-- Ids of deleted embedding rows, in deletion order; readers drop them from
-- their matrix. Pruned by `brainkeep embed`: a reader that finds a gap reloads.
CREATE TABLE embedding_tombstones (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  embedding_id INTEGER NOT NULL
);

-- Triggers keep vectors in step with every write path (pages, MCP facts,
-- gRPC memories, imports), the way the FTS rows are kept in step: a vector
-- of text that is gone, soft-deleted, expired or redacted must not be found.
CREATE TRIGGER embeddings_tombstone AFTER DELETE ON embeddings
BEGIN
  INSERT INTO embedding_tombstones (embedding_id) VALUES (OLD.id);
END;

CREATE TRIGGER chunks_drop_embedding AFTER DELETE ON chunks
BEGIN
  DELETE FROM embeddings WHERE kind = 'chunk' AND item_id = OLD.id;
END;

CREATE TRIGGER pages_soft_delete_drops_embeddings AFTER UPDATE OF deleted_at ON pages
WHEN NEW.deleted_at IS NOT NULL AND OLD.deleted_at IS NULL
BEGIN
  DELETE FROM embeddings WHERE kind = 'chunk' AND page_id = NEW.id;
END;

CREATE TRIGGER memories_retire_embedding AFTER UPDATE OF expired_at, deleted_at, text ON memories
WHEN NEW.expired_at IS NOT NULL OR NEW.deleted_at IS NOT NULL OR NEW.text IS NOT OLD.text
BEGIN
  DELETE FROM embeddings WHERE kind = 'memory' AND item_id = NEW.id;
END;

CREATE TRIGGER memories_drop_embedding AFTER DELETE ON memories
BEGIN
  DELETE FROM embeddings WHERE kind = 'memory' AND item_id = OLD.id;
END;

-- Document frequency per indexed term (read-only views over the FTS indexes):
-- the keyword arm ORs the rarest query terms first and stops adding common
-- ones once they would match too many rows (docs/search.md, "keyword arm").
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts_terms USING fts5vocab(chunks_fts, row);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts_terms USING fts5vocab(memories_fts, row);
CREATE VIRTUAL TABLE IF NOT EXISTS pages_fts_terms USING fts5vocab(pages_fts, row);


-- requires-extension: vector
-- 0017: the learned-sparse arm (SPLADE-tiny, docs/search.md "Learned sparse"):
-- one pgvector `sparsevec` per page chunk or memory over the model's 30,522
-- vocabulary terms, searched by inner product through an HNSW index
-- (store/postgres/sparse_index.py).
-- Skipped, like 0005, when the database lacks pgvector.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE sparse_vectors (
  kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('chunk', 'memory')),
  item_id BIGINT NOT NULL,
  source_id TEXT COLLATE "C" NOT NULL,
  page_id BIGINT,
  private INTEGER NOT NULL DEFAULT 0,
  model TEXT COLLATE "C" NOT NULL,
  text_hash TEXT COLLATE "C" NOT NULL,
  vector sparsevec(30522) NOT NULL,
  PRIMARY KEY (kind, item_id)
);
CREATE INDEX sparse_vectors_page ON sparse_vectors (page_id) WHERE page_id IS NOT NULL;
CREATE INDEX sparse_vectors_scan ON sparse_vectors (source_id, kind, model);
-- Inner-product HNSW (pgvector indexes sparsevec of at most 1,000 non-zero
-- terms: store/postgres/sparse_index.py keeps the 1,000 heaviest). Measured
-- at 20K rows: p50 104 -> 8 ms, top-10 recall by score 0.996 (docs/search.md).
CREATE INDEX sparse_vectors_hnsw ON sparse_vectors USING hnsw (vector sparsevec_ip_ops);

CREATE FUNCTION brainkeep_drop_chunk_sparse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM sparse_vectors WHERE kind = 'chunk' AND item_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER chunks_drop_sparse AFTER DELETE ON chunks
FOR EACH ROW EXECUTE FUNCTION brainkeep_drop_chunk_sparse();

CREATE FUNCTION brainkeep_drop_page_sparse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM sparse_vectors WHERE kind = 'chunk' AND page_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER pages_soft_delete_drops_sparse AFTER UPDATE OF deleted_at ON pages
FOR EACH ROW WHEN (NEW.deleted_at IS NOT NULL AND OLD.deleted_at IS NULL)
EXECUTE FUNCTION brainkeep_drop_page_sparse();

CREATE FUNCTION brainkeep_drop_memory_sparse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM sparse_vectors WHERE kind = 'memory'
    AND item_id = CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
  RETURN NULL;
END $$;
CREATE TRIGGER memories_retire_sparse AFTER UPDATE OF expired_at, deleted_at, text ON memories
FOR EACH ROW WHEN (NEW.expired_at IS NOT NULL OR NEW.deleted_at IS NOT NULL
                   OR NEW.text IS DISTINCT FROM OLD.text)
EXECUTE FUNCTION brainkeep_drop_memory_sparse();
CREATE TRIGGER memories_drop_sparse AFTER DELETE ON memories
FOR EACH ROW EXECUTE FUNCTION brainkeep_drop_memory_sparse();

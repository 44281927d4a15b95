-- requires-extension: vector
-- 0018: the dense HNSW indexes rebuilt denser (m 32, ef_construction 128).
-- pgvector's defaults (m 16, ef_construction 64) found only 0.48 of the
-- exact top 30 memories on the 200K bench corpus at the ef_search queries
-- used then (60): a retrieval-quality defect on the team engine, not a
-- tuning detail. With the denser graph and the per-kind ef_search of
-- store/postgres/nearest.py, recall@30 against exact search is >= 0.98
-- (bench/pg_ann_recall.py; docs/postgres.md "Vector recall").
-- Rebuilding takes time on a large brain (the graph is built again from
-- every vector: minutes at 200K rows); the migration says so in its log.
-- Skipped, like 0005, when the database lacks pgvector.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE OR REPLACE FUNCTION brainkeep_ensure_hnsw(d integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  k text;
BEGIN
  IF d < 1 OR d > 2000 THEN
    RAISE EXCEPTION 'no HNSW index for % dimensions (pgvector indexes 1..2000)', d
      USING ERRCODE = '22023';
  END IF;
  FOREACH k IN ARRAY ARRAY['chunk', 'memory'] LOOP
    EXECUTE format(
      'CREATE INDEX IF NOT EXISTS embeddings_hnsw_%s_%s ON embeddings USING hnsw '
      '((vector::vector(%s)) vector_cosine_ops) WITH (m = 32, ef_construction = 128) '
      'WHERE dim = %s AND kind = %L', d, k, d, d, k);
  END LOOP;
END $$;

-- Every index made with the old parameters, dropped and made again (one per
-- dimension that has one: 384 always, others where a model wrote vectors).
DO $$
DECLARE
  d integer;
BEGIN
  FOR d IN
    SELECT DISTINCT substring(indexname FROM '^embeddings_hnsw_([0-9]+)_')::integer
    FROM pg_indexes WHERE tablename = 'embeddings' AND indexname LIKE 'embeddings_hnsw_%'
  LOOP
    EXECUTE format('DROP INDEX IF EXISTS embeddings_hnsw_%s_chunk', d);
    EXECUTE format('DROP INDEX IF EXISTS embeddings_hnsw_%s_memory', d);
    PERFORM brainkeep_ensure_hnsw(d);
  END LOOP;
END $$;

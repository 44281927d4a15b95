-- 0018: on PostgreSQL, the pgvector HNSW indexes rebuilt with m 32 and
-- ef_construction 128. SQLite's ANN graph is a file beside the database
-- (store/sqlite/ann_index.py) with its own parameters, so this migration
-- only keeps the ids aligned.
SELECT 1;

-- 0007: on SQLite, the fts5vocab views (term document counts for the keyword
-- arm). PostgreSQL has no such views to create: document frequencies come
-- from the tsvector columns themselves (ts_stat, or a counted query on the
-- GIN index), so this migration only keeps the ids aligned.
SELECT 1;

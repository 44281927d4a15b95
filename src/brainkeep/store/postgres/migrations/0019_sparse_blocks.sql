-- 0019: on SQLite, the learned-sparse arm's compacted postings blocks.
-- PostgreSQL searches sparsevec columns (0017) and has no side index, so
-- this migration only keeps the ids aligned.
SELECT 1;

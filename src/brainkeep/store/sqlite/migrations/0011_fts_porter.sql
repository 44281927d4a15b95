-- 0011: the full-text indexes stem words (FTS5 'porter' over the same
-- unicode61 tokenizer), so "painting" finds "painted" and "activities" finds
-- "activity" (docs/search.md, "Chunking and full-text indexes"). A tokenizer
-- is fixed when an FTS5 table is created, so each table is rebuilt: the new
-- one takes every row of the old one (same rowids, same text: exactly the
-- rows the write paths had indexed, nothing re-derived), then replaces it.
-- The fts5vocab views name their table and are recreated with it; the
-- keyword planner looks words up in them as stems (store/sqlite/stems.py).
DROP TABLE IF EXISTS chunks_fts_terms;
DROP TABLE IF EXISTS pages_fts_terms;
DROP TABLE IF EXISTS memories_fts_terms;

CREATE VIRTUAL TABLE chunks_fts_porter USING fts5 (text, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO chunks_fts_porter (rowid, text) SELECT rowid, text FROM chunks_fts;
DROP TABLE chunks_fts;
ALTER TABLE chunks_fts_porter RENAME TO chunks_fts;

CREATE VIRTUAL TABLE pages_fts_porter USING fts5 (title, aliases, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO pages_fts_porter (rowid, title, aliases) SELECT rowid, title, aliases FROM pages_fts;
DROP TABLE pages_fts;
ALTER TABLE pages_fts_porter RENAME TO pages_fts;

CREATE VIRTUAL TABLE memories_fts_porter USING fts5 (text, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO memories_fts_porter (rowid, text) SELECT rowid, text FROM memories_fts;
DROP TABLE memories_fts;
ALTER TABLE memories_fts_porter RENAME TO memories_fts;

CREATE VIRTUAL TABLE chunks_fts_terms USING fts5vocab(chunks_fts, row);
CREATE VIRTUAL TABLE pages_fts_terms USING fts5vocab(pages_fts, row);
CREATE VIRTUAL TABLE memories_fts_terms USING fts5vocab(memories_fts, row);

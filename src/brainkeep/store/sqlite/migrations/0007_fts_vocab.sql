-- 0007: brains migrated by a pre-release 0005 lack the fts5vocab views the
-- keyword arm reads term document counts from. The views are derived (they
-- hold no data), so creating them here is safe on every brain; before 0007
-- the query path created them on first use, which put DDL inside a read.
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts_terms USING fts5vocab(chunks_fts, row);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts_terms USING fts5vocab(memories_fts, row);
CREATE VIRTUAL TABLE IF NOT EXISTS pages_fts_terms USING fts5vocab(pages_fts, row);

-- 0013: grep (MCP recall `grep`) and gRPC `exact` recall read a trigram index
-- instead of every row (docs/search.md, "Grep"). memories_grep is an FTS5
-- table over memories.text with the trigram tokenizer (SQLite >= 3.34): a
-- quoted phrase of 3 or more characters matches exactly the rows containing
-- it as a substring, folded per Unicode, a superset of the ASCII-only lower()
-- the queries still recheck, so results are identical to the old scan.
-- Unlike memories_fts it indexes EVERY row, deleted and expired ones too:
-- grep honours include_expired and as_of, and the read scope in the query
-- decides what a reader sees. External content (no second copy of the
-- text), kept in step by triggers, so no write path has to remember it.
CREATE VIRTUAL TABLE memories_grep USING fts5 (
  text, content = 'memories', content_rowid = 'id', tokenize = 'trigram'
);

CREATE TRIGGER memories_grep_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_grep (rowid, text) VALUES (new.id, new.text);
END;

CREATE TRIGGER memories_grep_delete AFTER DELETE ON memories BEGIN
  INSERT INTO memories_grep (memories_grep, rowid, text) VALUES ('delete', old.id, old.text);
END;

CREATE TRIGGER memories_grep_update AFTER UPDATE OF text ON memories BEGIN
  INSERT INTO memories_grep (memories_grep, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO memories_grep (rowid, text) VALUES (new.id, new.text);
END;

-- Backfill: every row already in the brain.
INSERT INTO memories_grep (memories_grep) VALUES ('rebuild');

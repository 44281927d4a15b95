-- 0011: the full-text indexes stem words, as SQLite's FTS5 'porter' tables
-- do since their 0011 ("painting" finds "painted", "activities" finds
-- "activity"). PostgreSQL's stemmer is Snowball English (Porter's own
-- successor: the same stems for nearly every word), in a text search
-- configuration of ours, `brainkeep`: the 'simple' parser and lowercasing,
-- words stemmed, and NO stopword list (the 'english' configuration drops
-- "the", "not", ...: SQLite keeps every word, and core decides which query
-- words to drop). Accents are still folded first (brainkeep_fold, 0001).
-- A generated column's expression cannot be altered before PostgreSQL 17,
-- so each `tsv` is dropped and added again with its GIN index (on a brain
-- being created this touches no rows). Queries use the same configuration
-- (store/postgres/keyword.py: phraseto_tsquery('brainkeep', term)).
CREATE TEXT SEARCH DICTIONARY brainkeep_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION brainkeep (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION brainkeep
  ALTER MAPPING FOR asciiword, word, asciihword, hword, hword_part, hword_asciipart
  WITH brainkeep_stem;

ALTER TABLE pages DROP COLUMN tsv;
ALTER TABLE pages ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
  CASE WHEN deleted_at IS NULL THEN
    setweight(to_tsvector('brainkeep'::regconfig, brainkeep_fold(title)), 'A')
    || setweight(to_tsvector('brainkeep'::regconfig, brainkeep_fold(alias_text)), 'B')
  END) STORED;
CREATE INDEX pages_fts ON pages USING gin (tsv);

ALTER TABLE chunks DROP COLUMN tsv;
ALTER TABLE chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
  to_tsvector('brainkeep'::regconfig, brainkeep_fold(text))) STORED;
CREATE INDEX chunks_fts ON chunks USING gin (tsv);

ALTER TABLE memories DROP COLUMN tsv;
ALTER TABLE memories ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
  CASE WHEN expired_at IS NULL AND deleted_at IS NULL AND redacted_at IS NULL
  THEN to_tsvector('brainkeep'::regconfig, brainkeep_fold(text)) END) STORED;
CREATE INDEX memories_fts ON memories USING gin (tsv);

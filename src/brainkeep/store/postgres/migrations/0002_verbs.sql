-- 0002: delta session cursors, keyed (source, client, session).
CREATE TABLE session_cursors (
  source_id TEXT COLLATE "C" NOT NULL,
  client_id TEXT COLLATE "C" NOT NULL,
  session_id TEXT COLLATE "C" NOT NULL,
  last_wake_at TEXT COLLATE "C" NOT NULL,
  page_slug TEXT COLLATE "C" NOT NULL DEFAULT '',
  fact_created_at TEXT COLLATE "C",
  fact_id BIGINT,
  standing_entities TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  updated_at TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (source_id, client_id, session_id)
);
CREATE INDEX session_cursors_idle ON session_cursors (updated_at);

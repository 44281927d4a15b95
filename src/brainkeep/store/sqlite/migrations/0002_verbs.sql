-- 0002: delta session cursors, keyed (source, client, session).
CREATE TABLE session_cursors (
  source_id TEXT NOT NULL,
  client_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  last_wake_at TEXT NOT NULL,
  page_slug TEXT NOT NULL DEFAULT '',
  fact_created_at TEXT,
  fact_id INTEGER,
  standing_entities TEXT NOT NULL DEFAULT '[]',
  updated_at TEXT NOT NULL,
  PRIMARY KEY (source_id, client_id, session_id)
);
CREATE INDEX session_cursors_idle ON session_cursors (updated_at);

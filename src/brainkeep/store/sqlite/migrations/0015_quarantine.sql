-- 0015: the review queue of writes the injection scorer held (issue 26).
-- One row per held memory or page: why it was held (score, rule ids; never
-- the text, which stays in its own row where forget can erase it) and what
-- the operator decided. A held memory is hidden by `memories.quarantined`,
-- a held page by storing it `private` (`held_visibility` is the visibility
-- its content asked for, restored on release), so every read path already
-- hides them from remote readers; this table only lists them for review.
CREATE TABLE quarantine (
  id INTEGER PRIMARY KEY,
  subject_type TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  source_id TEXT NOT NULL,
  org_id TEXT,
  label TEXT NOT NULL,
  score REAL NOT NULL,
  rules TEXT NOT NULL DEFAULT '[]',
  held_visibility TEXT,
  status TEXT NOT NULL DEFAULT 'pending',
  held_at TEXT NOT NULL,
  held_by TEXT NOT NULL,
  decided_at TEXT,
  decided_by TEXT,
  UNIQUE (subject_type, subject_id)
);
-- The queue is read by tenant and status, oldest first.
CREATE INDEX quarantine_queue ON quarantine (source_id, status, id);

-- 0014: reads leave the hash chain; verify remembers how far it got (issue 13).
-- One row per recall: who read (tenant, agent, thread), when, through which
-- surface and strategy, and which memories came back (row ids, best first).
-- Not hash-chained: reads are statistics, not acknowledged writes, so the
-- chain grows with writes only. Written in batches (core/mnemo/reads.py).
CREATE TABLE memory_reads (
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  source_id TEXT NOT NULL,
  org_id TEXT,
  agent_id TEXT NOT NULL,
  thread_id TEXT,
  surface TEXT NOT NULL,
  strategy TEXT NOT NULL,
  memory_ids TEXT NOT NULL DEFAULT '[]'
);
-- TrajectoryAudit reads one tenant, one agent or all of it, in order.
CREATE INDEX memory_reads_reader ON memory_reads (org_id, agent_id, id);
-- Heads a verify walk proved (core/verify.py): the next walk starts from
-- the newest one whose hash still matches the event at its seq. `signature`
-- (with the signing key's fingerprint) signs that head as chain.checkpoint
-- events do, so with a trusted key a row forged in the database is ignored.
CREATE TABLE verify_checkpoints (
  id INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL,
  verified_at TEXT NOT NULL,
  mode TEXT NOT NULL,
  from_seq INTEGER NOT NULL,
  key_fingerprint TEXT,
  signature TEXT
);
CREATE INDEX verify_checkpoints_seq ON verify_checkpoints (seq);

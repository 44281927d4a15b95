-- 0008: delta session cursors key on the event log's `seq` (commit order)
-- instead of application-clock time (docs/protocol.md, "delta"). Two
-- processes whose clocks disagree commit in seq order, never in time order.
ALTER TABLE session_cursors ADD COLUMN page_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE session_cursors ADD COLUMN fact_seq BIGINT NOT NULL DEFAULT 0;
-- An existing time cursor resumes just before the first event stamped at or
-- after it (a few rows may arrive twice, which delta's at-least-once contract
-- allows). A PostgreSQL brain is new or copied at the latest version, so this
-- normally touches no row; it is kept so both engines run the same steps.
UPDATE session_cursors SET
  page_seq = COALESCE(
    (SELECT MIN(seq) - 1 FROM events WHERE ts >= session_cursors.last_wake_at),
    (SELECT COALESCE(MAX(seq), 0) FROM events)),
  fact_seq = COALESCE(
    (SELECT MIN(seq) - 1 FROM events
     WHERE ts >= COALESCE(session_cursors.fact_created_at, session_cursors.last_wake_at)),
    (SELECT COALESCE(MAX(seq), 0) FROM events));
ALTER TABLE session_cursors DROP COLUMN page_slug;
ALTER TABLE session_cursors DROP COLUMN fact_created_at;
ALTER TABLE session_cursors DROP COLUMN fact_id;
-- delta scans one event kind after a seq (page.put, memory.insert).
CREATE INDEX events_kind_seq ON events (kind, seq);

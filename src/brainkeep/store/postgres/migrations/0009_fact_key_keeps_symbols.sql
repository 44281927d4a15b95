-- 0009: on SQLite, recomputes memories.normalized_text with the current
-- Python rule (core/memories/writes.py normalize_fact, registered there as a
-- SQL function). No PostgreSQL brain predates that rule: a new brain has no
-- rows, and `brainkeep migrate --to postgresql://` copies keys computed by a
-- source migrated to the latest version. Re-implementing the Python rule in
-- SQL would create a second rule that could drift, so this is a no-op.
SELECT 1;

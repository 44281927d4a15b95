-- 0016: the orientation cache (gRPC Recall `orientation_cache`, Mnemo v0.4.8;
-- core/mnemo/orientation.py). One row per namespace: its tenant ('' = the
-- tenant without an org; a UNIQUE key would treat NULLs as distinct), its
-- label and how many distilling recalls hit it.
CREATE TABLE orientation_namespaces (
  id INTEGER PRIMARY KEY,
  tenant TEXT NOT NULL,
  name TEXT NOT NULL,
  hit_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (tenant, name)
);
-- One row per (namespace, entry, source memory): how often that memory
-- brought the entry back. Reads sum `hits` over the source rows the reader
-- may see, so an entry is never shown from a row its reader cannot read;
-- a hard-deleted memory takes its entries with it.
CREATE TABLE orientation_entries (
  namespace_id INTEGER NOT NULL REFERENCES orientation_namespaces(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('entity', 'constant', 'schema')),
  entry_key TEXT NOT NULL,
  entry_value TEXT NOT NULL,
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  hits INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (namespace_id, kind, entry_key, entry_value, memory_id)
);
CREATE INDEX orientation_entries_memory ON orientation_entries (memory_id);

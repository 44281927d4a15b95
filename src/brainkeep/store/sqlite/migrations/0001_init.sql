-- 0001: the unified data model (docs/data-model.md).
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE sources (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE pages (
  id INTEGER PRIMARY KEY,
  source_id TEXT NOT NULL REFERENCES sources(id),
  slug TEXT NOT NULL,
  slug_tail TEXT NOT NULL,
  title TEXT NOT NULL,
  title_norm TEXT NOT NULL,
  type TEXT NOT NULL,
  frontmatter TEXT NOT NULL DEFAULT '{}',
  body TEXT NOT NULL,
  content TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  visibility TEXT NOT NULL DEFAULT 'world' CHECK (visibility IN ('world', 'private')),
  summary TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  last_retrieved_at TEXT,
  deleted_at TEXT,
  UNIQUE (source_id, slug)
);
CREATE INDEX pages_updated ON pages (source_id, updated_at, slug);
CREATE INDEX pages_title_norm ON pages (source_id, title_norm);
CREATE INDEX pages_slug_tail ON pages (source_id, slug_tail);
CREATE INDEX pages_type ON pages (source_id, type);

CREATE TABLE page_aliases (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  alias TEXT NOT NULL,
  alias_norm TEXT NOT NULL,
  PRIMARY KEY (page_id, alias_norm)
);
CREATE INDEX page_aliases_norm ON page_aliases (alias_norm);

CREATE TABLE links (
  id INTEGER PRIMARY KEY,
  source_id TEXT NOT NULL,
  from_page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  to_slug TEXT NOT NULL,
  link_type TEXT NOT NULL,
  link_source TEXT NOT NULL,
  context TEXT NOT NULL DEFAULT '',
  UNIQUE (from_page_id, to_slug, link_type)
);
CREATE INDEX links_to ON links (source_id, to_slug);

CREATE TABLE timeline_entries (
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  date TEXT NOT NULL,
  summary TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX timeline_page ON timeline_entries (page_id, date);

CREATE TABLE chunks (
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  kind TEXT NOT NULL,
  text TEXT NOT NULL,
  UNIQUE (page_id, ord)
);

-- Full-text indexes; rowids are chunks.id, pages.id and memories.id.
-- Rows of soft-deleted pages and expired/deleted memories are removed, so
-- search never has to filter them out.
CREATE VIRTUAL TABLE chunks_fts USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE pages_fts USING fts5 (title, aliases, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE memories_fts USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');

CREATE TABLE memories (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  source_id TEXT NOT NULL REFERENCES sources(id),
  text TEXT NOT NULL,
  normalized_text TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'fact',
  entity_slug TEXT,
  visibility TEXT NOT NULL DEFAULT 'world' CHECK (visibility IN ('world', 'private')),
  provenance TEXT,
  session_id TEXT,
  confidence REAL,
  valid_from TEXT,
  valid_until TEXT,
  expired_at TEXT,
  expired_reason TEXT,
  superseded_by INTEGER REFERENCES memories(id),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  origin TEXT NOT NULL DEFAULT 'mcp',
  agent_id TEXT NOT NULL DEFAULT '',
  org_id TEXT,
  thread_id TEXT,
  memory_type TEXT NOT NULL DEFAULT 'semantic',
  scope TEXT NOT NULL DEFAULT 'global',
  importance REAL NOT NULL DEFAULT 0.5,
  tags TEXT NOT NULL DEFAULT '[]',
  metadata TEXT NOT NULL DEFAULT '{}',
  source_type TEXT,
  source_ref TEXT,
  created_by TEXT,
  decay_rate REAL,
  access_count INTEGER NOT NULL DEFAULT 0,
  last_accessed_at TEXT,
  consolidation_state TEXT,
  quarantined INTEGER NOT NULL DEFAULT 0,
  content_hash TEXT NOT NULL,
  prev_hash TEXT,
  version INTEGER NOT NULL DEFAULT 1,
  deleted_at TEXT,
  delete_strategy TEXT,
  redacted_at TEXT
);
CREATE INDEX memories_entity ON memories (source_id, entity_slug, created_at);
CREATE INDEX memories_created ON memories (source_id, created_at);
CREATE INDEX memories_session ON memories (source_id, session_id, created_at);
CREATE INDEX memories_dedup ON memories (source_id, entity_slug, normalized_text);
CREATE INDEX memories_chain ON memories (agent_id, thread_id, id);

CREATE TABLE memory_tags (
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  PRIMARY KEY (memory_id, tag)
);
CREATE INDEX memory_tags_tag ON memory_tags (tag);

CREATE TABLE memory_relations (
  from_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  to_uuid TEXT NOT NULL,
  relation TEXT NOT NULL DEFAULT 'related_to',
  PRIMARY KEY (from_id, to_uuid, relation)
);

CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  source_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  subject_type TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  actor TEXT NOT NULL,
  payload TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE
);
CREATE INDEX events_subject ON events (subject_type, subject_id, seq);

-- 0003: the Mnemo gRPC side (docs/grpc.md): ACLs, delegations, checkpoints
-- and branches, topic-document membership. Memories stay in `memories`.

-- One grant of one permission on one memory to one agent (Share).
CREATE TABLE mnemo_acls (
  id TEXT PRIMARY KEY,
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  grantee TEXT NOT NULL,
  permission TEXT NOT NULL,
  granted_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  UNIQUE (memory_id, grantee)
);
CREATE INDEX mnemo_acls_grantee ON mnemo_acls (grantee, memory_id);

-- Delegate: `delegate` may act with `permission` on memories of `owner`
-- chosen by `selector` (ids | tags | all). `depth` counts hops from the
-- owner (1 = granted by the owner); re-delegation needs depth < max_depth.
CREATE TABLE mnemo_delegations (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  delegator TEXT NOT NULL,
  delegate TEXT NOT NULL,
  permission TEXT NOT NULL,
  selector TEXT NOT NULL CHECK (selector IN ('ids', 'tags', 'all')),
  depth INTEGER NOT NULL,
  max_depth INTEGER NOT NULL,
  parent_id TEXT REFERENCES mnemo_delegations(id),
  created_at TEXT NOT NULL,
  expires_at TEXT
);
CREATE INDEX mnemo_delegations_delegate ON mnemo_delegations (delegate, owner);

-- The memory ids (selector ids) or tags (selector tags) a delegation covers.
CREATE TABLE mnemo_delegation_items (
  delegation_id TEXT NOT NULL REFERENCES mnemo_delegations(id) ON DELETE CASCADE,
  memory_id INTEGER,
  tag TEXT
);
CREATE INDEX mnemo_delegation_items_memory ON mnemo_delegation_items (delegation_id, memory_id);
CREATE INDEX mnemo_delegation_items_tag ON mnemo_delegation_items (delegation_id, tag);

-- Checkpoints of one agent's thread; a branch is the chain of checkpoints
-- sharing a branch name, its head the newest by seq.
CREATE TABLE mnemo_checkpoints (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  agent_id TEXT NOT NULL,
  thread_id TEXT NOT NULL,
  branch_name TEXT NOT NULL,
  parent_id TEXT REFERENCES mnemo_checkpoints(id),
  merge_parent_id TEXT REFERENCES mnemo_checkpoints(id),
  kind TEXT NOT NULL CHECK (kind IN ('checkpoint', 'branch', 'merge')),
  label TEXT,
  state_snapshot TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  memory_refs TEXT NOT NULL DEFAULT '[]',
  event_cursor INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX mnemo_checkpoints_branch ON mnemo_checkpoints (agent_id, thread_id, branch_name, seq);

-- Members of a consolidated topic document (itself a row of `memories`).
CREATE TABLE mnemo_topic_members (
  topic_memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  member_uuid TEXT NOT NULL,
  ord INTEGER NOT NULL,
  PRIMARY KEY (topic_memory_id, member_uuid)
);

-- Recall filters that do not go through FTS (exact, recency, as_of, subject).
CREATE INDEX memories_agent_scope ON memories (agent_id, scope, id);

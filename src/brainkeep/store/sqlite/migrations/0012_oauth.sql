-- 0012: OAuth 2.1 for remote MCP clients. Only hashes of client secrets,
-- authorization codes, access and refresh tokens are stored. `id` of a grant
-- is the public lookup key embedded in its secret, as for `tokens`.
CREATE TABLE oauth_clients (
  client_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  secret_hash TEXT,
  redirect_uris TEXT NOT NULL DEFAULT '[]',
  grant_types TEXT NOT NULL DEFAULT '[]',
  scopes TEXT NOT NULL DEFAULT '[]',
  org_id TEXT,
  agent_id TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
-- One table for codes, access and refresh tokens (`kind`): a family is every
-- grant descended from one authorization, revoked together on refresh reuse.
CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  client_id TEXT NOT NULL,
  family_id TEXT NOT NULL,
  scopes TEXT NOT NULL DEFAULT '[]',
  resource TEXT,
  redirect_uri TEXT,
  code_challenge TEXT,
  org_id TEXT,
  agent_id TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX oauth_grants_family ON oauth_grants (family_id);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);

-- 0012: OAuth 2.1 for remote MCP clients. Only hashes of client secrets,
-- authorization codes, access and refresh tokens are stored. `id` of a grant
-- is the public lookup key embedded in its secret, as for `tokens`.
CREATE TABLE oauth_clients (
  client_id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL,
  secret_hash TEXT COLLATE "C",
  redirect_uris TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  grant_types TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  scopes TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  org_id TEXT COLLATE "C",
  agent_id TEXT COLLATE "C",
  metadata TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at TEXT COLLATE "C" NOT NULL,
  revoked_at TEXT COLLATE "C"
);
-- One table for codes, access and refresh tokens (`kind`): a family is every
-- grant descended from one authorization, revoked together on refresh reuse.
CREATE TABLE oauth_grants (
  id TEXT COLLATE "C" PRIMARY KEY,
  kind TEXT COLLATE "C" NOT NULL,
  secret_hash TEXT COLLATE "C" NOT NULL,
  client_id TEXT COLLATE "C" NOT NULL,
  family_id TEXT COLLATE "C" NOT NULL,
  scopes TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  resource TEXT COLLATE "C",
  redirect_uri TEXT COLLATE "C",
  code_challenge TEXT COLLATE "C",
  org_id TEXT COLLATE "C",
  agent_id TEXT COLLATE "C",
  created_at TEXT COLLATE "C" NOT NULL,
  expires_at TEXT COLLATE "C" NOT NULL,
  used_at TEXT COLLATE "C",
  revoked_at TEXT COLLATE "C"
);
CREATE INDEX oauth_grants_family ON oauth_grants (family_id);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);

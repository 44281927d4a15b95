-- 0004: HTTP bearer tokens. Only a hash of each secret is stored; the secret
-- is shown once at creation. `id` is the public lookup key embedded in the
-- secret, so verification never searches by anything derived from the secret.
CREATE TABLE tokens (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL,
  secret_hash TEXT COLLATE "C" NOT NULL,
  scopes TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  created_at TEXT COLLATE "C" NOT NULL,
  expires_at TEXT COLLATE "C",
  revoked_at TEXT COLLATE "C"
);
-- A name identifies one live token (it namespaces delta cursors and usage
-- stats); a revoked token's name may be reused by its replacement.
CREATE UNIQUE INDEX tokens_live_name ON tokens (name) WHERE revoked_at IS NULL;

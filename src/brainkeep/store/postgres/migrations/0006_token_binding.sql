-- 0006: a token may bind its caller to a tenant and an agent id, so one agent
-- is the same reader through MCP (HTTP) and gRPC. NULL = unbound: the no-org
-- tenant and an anonymous remote reader (the behaviour before 0006).
ALTER TABLE tokens ADD COLUMN org_id TEXT COLLATE "C";
ALTER TABLE tokens ADD COLUMN agent_id TEXT COLLATE "C";

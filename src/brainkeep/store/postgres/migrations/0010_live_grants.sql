-- 0010: visibility follows the live grants (docs/grpc.md, "Share").
-- A memory that Share turned from `private` into `shared` remembers it: it
-- reads as `shared` only while at least one of its ACLs is live, and as
-- `private` again (owner only, not covered by delegations) once every ACL
-- expired or was revoked. Memories written `shared` keep their scope.
ALTER TABLE memories ADD COLUMN shared_by_grant INTEGER NOT NULL DEFAULT 0;
-- "Does this memory still have a live ACL?" is asked per shared row.
CREATE INDEX mnemo_acls_memory ON mnemo_acls (memory_id, expires_at);
-- Revoking a delegation removes its re-delegations: found by parent.
CREATE INDEX mnemo_delegations_parent ON mnemo_delegations (parent_id);

-- model-gateway schema v9: keys as records an operator manages (id, display prefix, metadata,
-- status, last use, expiry for rotations). `status` replaces `disabled` (kept, no longer read).
ALTER TABLE {{schema}}.callers ADD COLUMN IF NOT EXISTS key_id text;
UPDATE {{schema}}.callers SET key_id = 'key_' || left(key_hash, 20) WHERE key_id IS NULL;
ALTER TABLE {{schema}}.callers ALTER COLUMN key_id SET NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS callers_key_id ON {{schema}}.callers (key_id);
ALTER TABLE {{schema}}.callers ADD COLUMN IF NOT EXISTS prefix text NOT NULL DEFAULT '';
ALTER TABLE {{schema}}.callers ADD COLUMN IF NOT EXISTS metadata jsonb;
ALTER TABLE {{schema}}.callers ADD COLUMN IF NOT EXISTS status text NOT NULL DEFAULT 'active';
ALTER TABLE {{schema}}.callers DROP CONSTRAINT IF EXISTS callers_status_check;
ALTER TABLE {{schema}}.callers ADD CONSTRAINT callers_status_check CHECK (status IN ('active', 'disabled', 'revoked'));
UPDATE {{schema}}.callers SET status = 'disabled' WHERE disabled AND status = 'active';
ALTER TABLE {{schema}}.callers ADD COLUMN IF NOT EXISTS last_used_at timestamptz;
ALTER TABLE {{schema}}.callers ADD COLUMN IF NOT EXISTS expires_at timestamptz;
CREATE INDEX IF NOT EXISTS callers_created_key ON {{schema}}.callers (created_at, key_id);

-- model-gateway schema v3: each hold names the instance that renews its lease.
ALTER TABLE {{schema}}.holds ADD COLUMN IF NOT EXISTS instance_id text;
CREATE INDEX IF NOT EXISTS holds_instance_id ON {{schema}}.holds (instance_id);

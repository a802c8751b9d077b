-- model-gateway schema v2: the upstream attempts of a request (failover).
ALTER TABLE {{schema}}.request_log ADD COLUMN IF NOT EXISTS attempts jsonb;

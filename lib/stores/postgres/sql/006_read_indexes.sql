-- model-gateway schema v6: indexes for the ledger and request-log reads (newest first, by caller or time).
CREATE INDEX IF NOT EXISTS ledger_caller_id_id ON {{schema}}.ledger (caller_id, id);
CREATE INDEX IF NOT EXISTS request_log_caller_started_id ON {{schema}}.request_log (caller_id, started_at, request_id);
CREATE INDEX IF NOT EXISTS request_log_started_id ON {{schema}}.request_log (started_at, request_id);

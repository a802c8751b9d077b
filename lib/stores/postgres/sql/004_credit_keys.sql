-- model-gateway schema v4: every credit or debit carries an idempotency key (moves money once).
ALTER TABLE {{schema}}.ledger ADD COLUMN IF NOT EXISTS idempotency_key text;
CREATE UNIQUE INDEX IF NOT EXISTS ledger_idempotency_key ON {{schema}}.ledger (idempotency_key);

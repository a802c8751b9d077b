-- model-gateway schema v8: the audit trail of operator writes (admin API).
CREATE TABLE IF NOT EXISTS {{schema}}.audit (
  id     bigserial PRIMARY KEY,
  at     timestamptz NOT NULL DEFAULT now(),
  actor  text NOT NULL,
  action text NOT NULL,
  target text NOT NULL,
  before jsonb,
  after  jsonb
);
CREATE INDEX IF NOT EXISTS audit_target_id ON {{schema}}.audit (target, id);

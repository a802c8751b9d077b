-- model-gateway schema v5: reviews are resolved once (charge or waive, by whom, why); a resolution's
-- charge is a ledger row of kind 'review' that names its request.
ALTER TABLE {{schema}}.reviews ADD COLUMN IF NOT EXISTS resolution text;
ALTER TABLE {{schema}}.reviews ADD COLUMN IF NOT EXISTS resolved_charge bigint;
ALTER TABLE {{schema}}.reviews ADD COLUMN IF NOT EXISTS resolved_by text;
ALTER TABLE {{schema}}.reviews ADD COLUMN IF NOT EXISTS reason text;
CREATE INDEX IF NOT EXISTS reviews_created ON {{schema}}.reviews (created_at, request_id);
ALTER TABLE {{schema}}.ledger ADD COLUMN IF NOT EXISTS refers_to text;
ALTER TABLE {{schema}}.ledger DROP CONSTRAINT IF EXISTS ledger_kind_check;
ALTER TABLE {{schema}}.ledger ADD CONSTRAINT ledger_kind_check CHECK (kind IN ('credit', 'charge', 'review'));

-- model-gateway schema v7: exact costs. A request's cost is kept exactly (numeric minor units);
-- each caller carries the part below one minor unit to its next charge. Rows written before v7
-- have no cost: their charge was the cost rounded up per request.
ALTER TABLE {{schema}}.balances ADD COLUMN IF NOT EXISTS carry numeric NOT NULL DEFAULT 0;
ALTER TABLE {{schema}}.balances DROP CONSTRAINT IF EXISTS balances_carry_check;
ALTER TABLE {{schema}}.balances ADD CONSTRAINT balances_carry_check CHECK (carry >= 0 AND carry < 1);
ALTER TABLE {{schema}}.settlements ADD COLUMN IF NOT EXISTS cost numeric;
ALTER TABLE {{schema}}.request_log ADD COLUMN IF NOT EXISTS cost numeric;

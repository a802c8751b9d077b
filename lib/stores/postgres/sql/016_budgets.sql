-- model-gateway schema v16: budgets. Caps on organisations and accounts (budgets), keys and run
-- keys (their record), held and settled with the balance; spend kept per scope and period, so a new
-- period is a new row (a reset writes nothing, on any instance).
ALTER TABLE {{schema}}.callers ADD COLUMN IF NOT EXISTS budget jsonb;
ALTER TABLE {{schema}}.callers ADD COLUMN IF NOT EXISTS parent_key_id text;
ALTER TABLE {{schema}}.callers ADD COLUMN IF NOT EXISTS run_keys jsonb;
CREATE INDEX IF NOT EXISTS callers_parent_key_id ON {{schema}}.callers (parent_key_id) WHERE parent_key_id IS NOT NULL;

-- The budget of an organisation ("org:<id>") or an account ("account:<caller id>").
CREATE TABLE IF NOT EXISTS {{schema}}.budgets (
  scope      text PRIMARY KEY,
  limits     jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The organisation an account belongs to (at most one).
CREATE TABLE IF NOT EXISTS {{schema}}.organizations (
  caller_id text PRIMARY KEY,
  org_id    text NOT NULL
);
CREATE INDEX IF NOT EXISTS organizations_org_id ON {{schema}}.organizations (org_id);

-- A scope's figures in one period. `spent` stops at the cap a charge was made under; the rest of
-- such a charge is `excess` (the request is flagged for review). `held` is the sum of live holds.
CREATE TABLE IF NOT EXISTS {{schema}}.budget_spend (
  scope         text NOT NULL,
  period        text NOT NULL,
  spent         bigint NOT NULL DEFAULT 0 CHECK (spent >= 0),
  held          bigint NOT NULL DEFAULT 0 CHECK (held >= 0),
  excess        bigint NOT NULL DEFAULT 0 CHECK (excess >= 0),
  requests      bigint NOT NULL DEFAULT 0,
  requests_held bigint NOT NULL DEFAULT 0 CHECK (requests_held >= 0),
  tokens        bigint NOT NULL DEFAULT 0,
  tokens_held   bigint NOT NULL DEFAULT 0 CHECK (tokens_held >= 0),
  PRIMARY KEY (scope, period)
);

-- A hold also holds its tokens and its scopes ([{scope, period, amount, requests, tokens}]): its
-- lease covers them, and whatever frees the hold (settle, release, the sweep) frees them.
ALTER TABLE {{schema}}.holds ADD COLUMN IF NOT EXISTS tokens bigint NOT NULL DEFAULT 0;
ALTER TABLE {{schema}}.holds ADD COLUMN IF NOT EXISTS scopes jsonb;

-- The request log names the key, the client session (and where its id was read) and the subagent.
ALTER TABLE {{schema}}.request_log ADD COLUMN IF NOT EXISTS key_id text;
ALTER TABLE {{schema}}.request_log ADD COLUMN IF NOT EXISTS session_id text;
ALTER TABLE {{schema}}.request_log ADD COLUMN IF NOT EXISTS session_source text;
ALTER TABLE {{schema}}.request_log ADD COLUMN IF NOT EXISTS agent_id text;

-- The reserves of one tick when any of them is under a budget: one call, one transaction. The
-- balances are locked first (caller order), the period rows made if missing, then locked (scope
-- order) and read afresh; each request is admitted, in arrival order, when the running total of its
-- caller and of every scope on its path fits (a request refused still counts against later ones
-- in the same call: never more, sometimes less). Returns, per request, whether it was held, the
-- balance available, and the first scope (in the request's order) that refused it, with what was left.
CREATE OR REPLACE FUNCTION {{schema}}.reserve_scoped(batch jsonb)
  RETURNS TABLE (i int, ok boolean, available bigint, scope text, dimension text, remaining bigint) LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM 1 FROM {{schema}}.balances b WHERE b.caller_id IN (SELECT e->>'caller_id' FROM jsonb_array_elements(batch) e)
    ORDER BY b.caller_id FOR UPDATE;
  INSERT INTO {{schema}}.budget_spend (scope, period)
    SELECT DISTINCT s->>'scope', s->>'period' FROM jsonb_array_elements(batch) e CROSS JOIN LATERAL jsonb_array_elements(e->'scopes') s
    ORDER BY 1, 2 ON CONFLICT DO NOTHING;
  RETURN QUERY WITH
    x AS (SELECT * FROM jsonb_to_recordset(batch) AS x(i int, request_id text, caller_id text, amount bigint, tokens bigint,
      expires_at double precision, instance_id text, scopes jsonb)),
    s AS (SELECT x.i, y.n, y.v->>'scope' AS scope, y.v->>'period' AS period, (y.v->>'amount')::bigint AS cap_amount,
        (y.v->>'requests')::bigint AS cap_requests, (y.v->>'tokens')::bigint AS cap_tokens, x.amount, x.tokens
      FROM x CROSS JOIN LATERAL jsonb_array_elements(coalesce(x.scopes, '[]'::jsonb)) WITH ORDINALITY AS y(v, n)),
    sp AS (SELECT p.scope, p.period, p.spent + p.held AS used, p.requests + p.requests_held AS used_requests, p.tokens + p.tokens_held AS used_tokens
      FROM {{schema}}.budget_spend p WHERE (p.scope, p.period) IN (SELECT s.scope, s.period FROM s) ORDER BY p.scope, p.period FOR UPDATE),
    b AS (SELECT c.caller_id, c.balance - c.held AS available FROM {{schema}}.balances c WHERE c.caller_id IN (SELECT x.caller_id FROM x)
      ORDER BY c.caller_id FOR UPDATE),
    wb AS (SELECT x.i, x.request_id, x.caller_id, x.amount, b.available, sum(x.amount) OVER (PARTITION BY x.caller_id ORDER BY x.i) AS running
      FROM x JOIN b ON b.caller_id = x.caller_id),
    r AS (SELECT s.i, s.n, s.scope, s.cap_amount, s.cap_requests, s.cap_tokens, s.amount, s.tokens, sp.used, sp.used_requests, sp.used_tokens,
        sum(s.amount) OVER w AS run_amount, count(*) OVER w AS run_requests, sum(s.tokens) OVER w AS run_tokens
      FROM s JOIN sp ON sp.scope = s.scope AND sp.period = s.period WINDOW w AS (PARTITION BY s.scope, s.period ORDER BY s.i)),
    f AS (SELECT r.*, CASE
        WHEN r.cap_amount IS NOT NULL AND r.used + r.run_amount > r.cap_amount THEN 'amount'
        WHEN r.cap_requests IS NOT NULL AND r.used_requests + r.run_requests > r.cap_requests THEN 'requests'
        WHEN r.cap_tokens IS NOT NULL AND r.used_tokens + r.run_tokens > r.cap_tokens THEN 'tokens' END AS dimension
      FROM r),
    bad AS (SELECT DISTINCT ON (f.i) f.i, f.scope, f.dimension, greatest(0, CASE f.dimension
          WHEN 'amount' THEN f.cap_amount - f.used - f.run_amount + f.amount
          WHEN 'requests' THEN f.cap_requests - f.used_requests - f.run_requests + 1
          ELSE f.cap_tokens - f.used_tokens - f.run_tokens + f.tokens END)::bigint AS remaining
      FROM f WHERE f.dimension IS NOT NULL ORDER BY f.i, f.n),
    h AS (INSERT INTO {{schema}}.holds (request_id, caller_id, amount, expires_at, instance_id, tokens, scopes)
      SELECT wb.request_id, wb.caller_id, wb.amount, to_timestamp(x.expires_at / 1000), x.instance_id, coalesce(x.tokens, 0), x.scopes
      FROM wb JOIN x ON x.i = wb.i WHERE wb.running <= wb.available AND NOT EXISTS (SELECT 1 FROM bad WHERE bad.i = wb.i)
      ON CONFLICT (request_id) DO NOTHING RETURNING request_id, caller_id, amount, tokens, scopes),
    u AS (UPDATE {{schema}}.balances c SET held = c.held + t.total FROM (SELECT h.caller_id, sum(h.amount) AS total FROM h GROUP BY h.caller_id) t
      WHERE c.caller_id = t.caller_id),
    hs AS (SELECT e->>'scope' AS scope, e->>'period' AS period, sum(h.amount) AS amount, sum(h.tokens) AS tokens, count(*) AS n
      FROM h CROSS JOIN LATERAL jsonb_array_elements(coalesce(h.scopes, '[]'::jsonb)) e GROUP BY 1, 2),
    us AS (UPDATE {{schema}}.budget_spend p SET held = p.held + hs.amount, tokens_held = p.tokens_held + hs.tokens, requests_held = p.requests_held + hs.n
      FROM hs WHERE p.scope = hs.scope AND p.period = hs.period)
  SELECT wb.i, h.request_id IS NOT NULL, (wb.available - wb.running + wb.amount)::bigint, bad.scope, bad.dimension, bad.remaining
  FROM wb LEFT JOIN h ON h.request_id = wb.request_id LEFT JOIN bad ON bad.i = wb.i;
END $$;

-- model-gateway schema v1. {{schema}} is replaced by the configured schema name.
CREATE SCHEMA IF NOT EXISTS {{schema}};

-- API keys, stored as SHA-256 hex digests only.
CREATE TABLE IF NOT EXISTS {{schema}}.callers (
  key_hash   text PRIMARY KEY,
  caller_id  text NOT NULL,
  models     text[],
  limits     jsonb,
  disabled   boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS callers_caller_id ON {{schema}}.callers (caller_id);

-- One row per caller: balance is the sum of the ledger; held is the sum of its live holds.
CREATE TABLE IF NOT EXISTS {{schema}}.balances (
  caller_id text PRIMARY KEY,
  balance   bigint NOT NULL DEFAULT 0,
  held      bigint NOT NULL DEFAULT 0 CHECK (held >= 0)
);

-- Money held for requests in flight; expired holds are released by the sweeper.
CREATE TABLE IF NOT EXISTS {{schema}}.holds (
  request_id text PRIMARY KEY,
  caller_id  text NOT NULL,
  amount     bigint NOT NULL CHECK (amount >= 0),
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS holds_expires_at ON {{schema}}.holds (expires_at);

-- Every movement of money. A request id appears at most once (exactly-once charges).
CREATE TABLE IF NOT EXISTS {{schema}}.ledger (
  id         bigserial PRIMARY KEY,
  caller_id  text NOT NULL,
  request_id text UNIQUE,
  amount     bigint NOT NULL,
  kind       text NOT NULL CHECK (kind IN ('credit', 'charge')),
  at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ledger_caller_id ON {{schema}}.ledger (caller_id);

-- One row per settled request: the primary key makes settle exactly-once.
CREATE TABLE IF NOT EXISTS {{schema}}.settlements (
  request_id     text PRIMARY KEY,
  caller_id      text NOT NULL,
  model          text NOT NULL,
  endpoint       text NOT NULL,
  charge         bigint NOT NULL,
  billing_status text NOT NULL,
  usage          jsonb NOT NULL,
  settled_at     timestamptz NOT NULL DEFAULT now()
);

-- Settled requests whose usage could not be billed from confirmed tokens.
CREATE TABLE IF NOT EXISTS {{schema}}.reviews (
  request_id   text PRIMARY KEY,
  caller_id    text NOT NULL,
  model        text NOT NULL,
  endpoint     text NOT NULL,
  charge       bigint NOT NULL,
  usage        jsonb NOT NULL,
  search_units bigint NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  resolved_at  timestamptz
);

-- One row per request that reached the router.
CREATE TABLE IF NOT EXISTS {{schema}}.request_log (
  request_id     text PRIMARY KEY,
  caller_id      text,
  endpoint       text NOT NULL,
  model          text,
  stream         boolean NOT NULL,
  status         integer NOT NULL,
  error_code     text,
  usage          jsonb,
  charge         bigint NOT NULL,
  billing_status text NOT NULL,
  started_at     timestamptz NOT NULL,
  duration_ms    double precision NOT NULL,
  ttfb_ms        double precision,
  upstream       text,
  detail         text,
  end_user       text
);
CREATE INDEX IF NOT EXISTS request_log_caller_started ON {{schema}}.request_log (caller_id, started_at);

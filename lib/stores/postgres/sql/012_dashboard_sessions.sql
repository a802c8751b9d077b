-- model-gateway schema v12: dashboard sign-ins and failed sign-ins, shared by every instance.
-- A session row holds the SHA-256 of its cookie value, never the value, and a check of the admin
-- token it was opened with that needs the cookie value to verify, never the token or its digest.
CREATE TABLE IF NOT EXISTS {{schema}}.dashboard_sessions (
  id_hash     text PRIMARY KEY,
  seq         bigserial NOT NULL, -- sign-in order: the oldest ends first at the bound
  token_name  text NOT NULL,
  token_check text NOT NULL,
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL,
  last_seen   bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS dashboard_sessions_seq ON {{schema}}.dashboard_sessions (seq);
-- Failed sign-ins and admin tokens per client address, in rate-limiter-flexible's table shape
-- (RateLimiterPostgres): points counted until expire (epoch ms).
CREATE TABLE IF NOT EXISTS {{schema}}.sign_in_failures (
  key    varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);

-- model-gateway schema v20: stored Responses API responses (opt-in: `responses.store`). Bodies are
-- `json`, not `jsonb`, so a response and its items read back byte for byte as they were written.
CREATE TABLE IF NOT EXISTS {{schema}}.responses (
  id                   text PRIMARY KEY,
  caller_id            text NOT NULL,
  request_id           text NOT NULL,
  model                text NOT NULL,
  upstream             text NOT NULL,
  upstream_response_id text,
  previous_response_id text,
  response             json NOT NULL,
  instructions         json NOT NULL,
  tools                json NOT NULL,
  usage                jsonb,
  bytes                integer NOT NULL,
  created_at           timestamptz NOT NULL,
  expires_at           timestamptz NOT NULL
);
-- The retention sweep reads the oldest expiries first; an operator's erasure deletes by account.
CREATE INDEX IF NOT EXISTS responses_expires_at ON {{schema}}.responses (expires_at);
CREATE INDEX IF NOT EXISTS responses_caller_id ON {{schema}}.responses (caller_id);

-- A response's input items in order; an item id (a page cursor) names one place.
CREATE TABLE IF NOT EXISTS {{schema}}.response_items (
  response_id text NOT NULL REFERENCES {{schema}}.responses (id) ON DELETE CASCADE,
  position    integer NOT NULL,
  item_id     text NOT NULL,
  item        json NOT NULL,
  PRIMARY KEY (response_id, position),
  UNIQUE (response_id, item_id)
);

-- What the request log shows of a Responses request: its response, stored or why not, what it
-- chained from. Kept like the request log (the retention sweep removes responses, not these).
CREATE TABLE IF NOT EXISTS {{schema}}.response_notes (
  request_id           text PRIMARY KEY,
  response_id          text NOT NULL,
  caller_id            text NOT NULL,
  stored               boolean NOT NULL,
  reason               text CHECK (reason IN ('too_large', 'conflict', 'not_requested', 'disabled')),
  previous_response_id text,
  at                   timestamptz NOT NULL DEFAULT now()
);

-- model-gateway schema v11: runtime edits of the model catalog, kept for every instance and
-- every restart. One row per model: an edit of some fields of a configured model, a model added
-- at runtime, or a configured model withdrawn. catalog_state.version grows with every change, so
-- an instance polls one number and reads the rows only when it moved.
CREATE TABLE IF NOT EXISTS {{schema}}.catalog_overrides (
  model  text PRIMARY KEY,
  kind   text NOT NULL CHECK (kind IN ('edit', 'add', 'remove')),
  fields jsonb NOT NULL DEFAULT '{}'::jsonb,
  actor  text NOT NULL,
  at     bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS {{schema}}.catalog_state (
  id      boolean PRIMARY KEY DEFAULT true CHECK (id),
  version bigint NOT NULL DEFAULT 0
);
INSERT INTO {{schema}}.catalog_state (id, version) VALUES (true, 0) ON CONFLICT DO NOTHING;

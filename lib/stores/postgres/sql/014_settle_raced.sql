-- model-gateway schema v14: a settlement batch is one statement (lib/stores/postgres/settle.ts).
-- When a request of the batch was settled by another transaction after the statement's snapshot,
-- the statement calls this to abort itself; the store runs it again.
CREATE OR REPLACE FUNCTION {{schema}}.settle_raced() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'a request of this settlement batch was settled meanwhile; retry' USING ERRCODE = '40001';
END $$;

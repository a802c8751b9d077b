-- model-gateway schema v13: the request log partitioned by day (UTC) of started_at, so retention
-- drops whole partitions instead of deleting rows. A request id is still logged once: a unique
-- key must hold the partition key, so (request_id, started_at) is the key and the writes check
-- the id (lib/stores/postgres/log.ts). Rows outside every daily partition go to the default one.

-- Makes the partition of one day if it is missing (rows of that day already in the default
-- partition move into it). Safe from every instance at once: serialised by an advisory lock.
CREATE OR REPLACE FUNCTION {{schema}}.request_log_partition(day date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  part text := 'request_log_p' || to_char(day, 'YYYYMMDD');
  lo timestamptz := day::timestamp AT TIME ZONE 'UTC';
  hi timestamptz := (day + 1)::timestamp AT TIME ZONE 'UTC';
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('model-gateway-log:{{schema}}'));
  IF to_regclass(format('%I.%I', '{{schema}}', part)) IS NOT NULL THEN RETURN; END IF;
  EXECUTE format('CREATE TABLE %I.%I (LIKE %I.request_log INCLUDING DEFAULTS)', '{{schema}}', part, '{{schema}}');
  EXECUTE format('WITH m AS (DELETE FROM %I.request_log_default WHERE started_at >= $1 AND started_at < $2 RETURNING *) INSERT INTO %I.%I SELECT * FROM m',
    '{{schema}}', '{{schema}}', part) USING lo, hi;
  EXECUTE format('ALTER TABLE %I.request_log ATTACH PARTITION %I.%I FOR VALUES FROM (%L) TO (%L)', '{{schema}}', '{{schema}}', part, lo, hi);
END $$;

-- Drops the daily partitions wholly before `day`, and the default partition's rows before it.
CREATE OR REPLACE FUNCTION {{schema}}.request_log_drop_before(day date) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  part record;
  dropped integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('model-gateway-log:{{schema}}'));
  FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = '{{schema}}.request_log'::regclass AND c.relname ~ '^request_log_p[0-9]{8}$'
        AND to_date(substr(c.relname, 14), 'YYYYMMDD') < day LOOP
    EXECUTE format('DROP TABLE IF EXISTS %I.%I', '{{schema}}', part.relname);
    dropped := dropped + 1;
  END LOOP;
  DELETE FROM {{schema}}.request_log_default WHERE started_at < day::timestamp AT TIME ZONE 'UTC';
  RETURN dropped;
END $$;

DO $$
DECLARE
  day date;
BEGIN
  IF (SELECT c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '{{schema}}' AND c.relname = 'request_log') = 'r' THEN
    ALTER TABLE {{schema}}.request_log RENAME TO request_log_unpartitioned;
    CREATE TABLE {{schema}}.request_log (LIKE {{schema}}.request_log_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (started_at);
    CREATE TABLE {{schema}}.request_log_default PARTITION OF {{schema}}.request_log DEFAULT;
    FOR day IN SELECT DISTINCT (started_at AT TIME ZONE 'UTC')::date FROM {{schema}}.request_log_unpartitioned LOOP
      PERFORM {{schema}}.request_log_partition(day);
    END LOOP;
    INSERT INTO {{schema}}.request_log SELECT * FROM {{schema}}.request_log_unpartitioned;
    DROP TABLE {{schema}}.request_log_unpartitioned;
    ALTER TABLE {{schema}}.request_log ADD PRIMARY KEY (request_id, started_at);
    CREATE INDEX request_log_request_id ON {{schema}}.request_log (request_id);
    CREATE INDEX request_log_caller_started ON {{schema}}.request_log (caller_id, started_at);
    CREATE INDEX request_log_caller_started_id ON {{schema}}.request_log (caller_id, started_at, request_id);
    CREATE INDEX request_log_started_id ON {{schema}}.request_log (started_at, request_id);
  END IF;
  PERFORM {{schema}}.request_log_partition((now() AT TIME ZONE 'UTC')::date);
  PERFORM {{schema}}.request_log_partition((now() AT TIME ZONE 'UTC')::date + 1);
END $$;

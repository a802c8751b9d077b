-- model-gateway schema v10: usage keeps cache writes by lifetime and web searches. Rows written
-- before v10 have one cache-write total (cacheCreationInputTokens); it becomes 5-minute writes,
-- the only kind the gateway billed then, and the new figures are 0.
UPDATE {{schema}}.request_log SET usage = (usage - 'cacheCreationInputTokens')
    || jsonb_build_object('cacheWrite5mInputTokens', coalesce((usage->>'cacheCreationInputTokens')::bigint, 0), 'cacheWrite1hInputTokens', 0, 'webSearchRequests', 0)
  WHERE usage IS NOT NULL AND jsonb_typeof(usage) = 'object' AND NOT usage ? 'cacheWrite5mInputTokens';
UPDATE {{schema}}.settlements SET usage = (usage - 'cacheCreationInputTokens')
    || jsonb_build_object('cacheWrite5mInputTokens', coalesce((usage->>'cacheCreationInputTokens')::bigint, 0), 'cacheWrite1hInputTokens', 0, 'webSearchRequests', 0)
  WHERE jsonb_typeof(usage) = 'object' AND NOT usage ? 'cacheWrite5mInputTokens';
UPDATE {{schema}}.reviews SET usage = (usage - 'cacheCreationInputTokens')
    || jsonb_build_object('cacheWrite5mInputTokens', coalesce((usage->>'cacheCreationInputTokens')::bigint, 0), 'cacheWrite1hInputTokens', 0, 'webSearchRequests', 0)
  WHERE jsonb_typeof(usage) = 'object' AND NOT usage ? 'cacheWrite5mInputTokens';

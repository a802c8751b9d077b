/** Messages usage → Responses usage: Responses counts the cached part inside `input_tokens`, Anthropic beside it. */
import type { MessageUsage } from '../../messages/request';
import type { ResponsesUsage } from './types';

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

/** The cache writes of a usage: their total, or (when only the breakdown came) the sum of its 5-minute and 1-hour parts. */
function cacheWrites(usage: Partial<MessageUsage>): number {
  if (typeof usage.cache_creation_input_tokens === 'number') return count(usage.cache_creation_input_tokens);
  const split = usage.cache_creation;
  return count(split?.ephemeral_5m_input_tokens) + count(split?.ephemeral_1h_input_tokens);
}

/**
 * `input_tokens` = fresh input + cache reads + cache writes; `cached_tokens` = cache reads (always
 * present: Codex refuses a usage without it and retries); `cache_write_tokens` = cache writes;
 * `reasoning_tokens` = the thinking tokens the upstream reported (0 when it reports none, never a guess).
 */
export function responsesUsage(usage: Partial<MessageUsage> | undefined): ResponsesUsage {
  const u = usage ?? {};
  const read = count(u.cache_read_input_tokens);
  const written = cacheWrites(u);
  const input = count(u.input_tokens) + read + written;
  const output = count(u.output_tokens);
  const reasoning = count((u.output_tokens_details as { thinking_tokens?: unknown } | null | undefined)?.thinking_tokens);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: read, cache_write_tokens: written },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + output,
  };
}

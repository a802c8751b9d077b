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

type Item = Record<string, unknown>;

/** A figure a client parses: a whole, non-negative number (JSON's `1e400` reads as Infinity, which JSON writes as null). */
const isFigure = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const figure = (value: unknown): number => (isFigure(value) ? value : 0);

/** Whether a details object is absent, or an object whose `required` figure and every other field are figures. */
const soundDetails = (details: unknown, required: string): boolean =>
  details === undefined || details === null || (typeof details === 'object' && !Array.isArray(details) && isFigure((details as Item)[required]) && Object.values(details).every(isFigure));

/** A details object with each field a figure (0 for one that is not) and `required` present; null for a details value that is no object. */
function detailsOf(details: unknown, required: string): Item | null | undefined {
  if (details === undefined || details === null) return details;
  if (typeof details !== 'object' || Array.isArray(details)) return null;
  const out: Item = { [required]: 0 };
  for (const [key, value] of Object.entries(details)) out[key] = figure(value);
  return out;
}

/**
 * An upstream's Responses usage as a client gets it: the same object when every figure is a whole
 * non-negative number (with `cached_tokens` and `reasoning_tokens` in their details when those are
 * given); otherwise each figure that is not one is 0, the cached and written parts are bounded by
 * `input_tokens` (as billing reads them), and `total_tokens` is input + output. Codex fails to parse
 * any other usage and retries the whole request. Billing reads the upstream's own figures (an
 * implausible one is billed 0 and flagged for review), never these.
 */
export function parsableUsage(usage: unknown): unknown {
  if (usage === undefined || usage === null) return usage;
  if (typeof usage !== 'object' || Array.isArray(usage)) return null;
  const u = usage as Item;
  if (isFigure(u.input_tokens) && isFigure(u.output_tokens) && isFigure(u.total_tokens)
    && soundDetails(u.input_tokens_details, 'cached_tokens') && soundDetails(u.output_tokens_details, 'reasoning_tokens')) return usage;
  const input = figure(u.input_tokens);
  const output = figure(u.output_tokens);
  const out: Item = { ...u, input_tokens: input, output_tokens: output, total_tokens: input + output };
  const inputDetails = detailsOf(u.input_tokens_details, 'cached_tokens');
  const outputDetails = detailsOf(u.output_tokens_details, 'reasoning_tokens');
  if (inputDetails) {
    const read = Math.min(input, figure(inputDetails.cached_tokens));
    inputDetails.cached_tokens = read;
    if ('cache_write_tokens' in inputDetails) inputDetails.cache_write_tokens = Math.min(input - read, figure(inputDetails.cache_write_tokens));
  }
  if (inputDetails !== undefined) out.input_tokens_details = inputDetails;
  if (outputDetails !== undefined) out.output_tokens_details = outputDetails;
  return out;
}

/** The default admission estimate: fast character counting, never a tokenizer on the hot path. */

/** Tokens estimated before the upstream call; used to admit, reserve and count limits, never to bill. */
export interface TokenEstimate {
  inputTokens: number;
  outputTokens: number;
}

/** Estimates tokens for a request body. Must be fast: it runs on every request. */
export type Estimator = (body: unknown) => TokenEstimate;

/** Characters per token assumed by the default estimator (deliberately pessimistic). */
export const CHARS_PER_TOKEN = 3;
const PER_MESSAGE_OVERHEAD = 8;

function textLength(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content) {
    if (typeof part === 'string') n += part.length;
    else if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') n += (part as { text: string }).text.length;
  }
  return n;
}

/**
 * Default estimator for Messages, chat completions and rerank bodies: input is
 * ceil(characters / 3) plus 8 per message (the query counts once per document for rerank);
 * output is `max_tokens` (or `max_completion_tokens`), the most the upstream may produce.
 * It reads string lengths and never scans or copies text: its cost grows with the number of parts, not their size.
 */
export const defaultEstimator: Estimator = (body) => {
  const b = (body ?? {}) as Record<string, unknown>;
  let chars = textLength(b.system);
  let overhead = 0;
  if (Array.isArray(b.messages)) {
    for (const m of b.messages) chars += textLength((m as { content?: unknown } | null)?.content);
    overhead += PER_MESSAGE_OVERHEAD * b.messages.length;
  }
  if (Array.isArray(b.documents)) {
    const query = typeof b.query === 'string' ? b.query.length : 0;
    chars += textLength(b.documents) + query * b.documents.length;
  }
  const max = typeof b.max_tokens === 'number' ? b.max_tokens : typeof b.max_completion_tokens === 'number' ? b.max_completion_tokens : 0;
  return { inputTokens: Math.ceil(chars / CHARS_PER_TOKEN) + overhead, outputTokens: Math.max(0, Math.floor(max)) };
};

/** The default admission estimate: fast character counting, never a tokenizer on the hot path. */

/** Tokens estimated before the upstream call; used to admit, reserve and count limits, never to bill. */
export interface TokenEstimate {
  inputTokens: number;
  outputTokens: number;
  /** Search units of a rerank body (priced by `searchUnit`); none: 0. */
  searchUnits?: number;
}

/** Estimates tokens for a request body. Must be fast: it runs on every request. */
export type Estimator = (body: unknown) => TokenEstimate;

/** Characters per token assumed by the default estimator (deliberately pessimistic). */
export const CHARS_PER_TOKEN = 3;
const PER_MESSAGE_OVERHEAD = 8;
/** Tokens counted for an image: about Anthropic's most for one image (1.15 megapixels). */
export const IMAGE_TOKENS = 1_600;
/** Base64 characters of a PDF counted per token (a page of about 50 KB carries text and an image of about 2,000 tokens). */
const PDF_CHARS_PER_TOKEN = 25;
/** Documents one search unit ranks (Cohere: one query over up to 100 documents). */
const DOCUMENTS_PER_SEARCH_UNIT = 100;
/** Deepest nesting walked (the agent profile refuses deeper bodies; a host's own body is never walked deeper). */
const MAX_DEPTH = 64;

/** Characters (text, keys, tool schemas and inputs) and tokens counted outright (images, PDFs) of a body. */
interface Tally {
  chars: number;
  tokens: number;
}

/** An image or a base64 document: counted by the tokens it costs, not by its data's characters. */
function media(block: Record<string, unknown>, tally: Tally): boolean {
  if (block.type === 'image') {
    tally.tokens += IMAGE_TOKENS;
    return true;
  }
  const source = block.source as { type?: unknown; data?: unknown } | undefined;
  if (block.type === 'document' && source?.type === 'base64' && typeof source.data === 'string') {
    tally.tokens += Math.ceil(source.data.length / PDF_CHARS_PER_TOKEN);
    return true;
  }
  return false;
}

/** Adds what a value counts: strings by their length, objects by their keys and values, media by their tokens. */
function walk(value: unknown, tally: Tally, depth: number): void {
  if (typeof value === 'string') {
    tally.chars += value.length;
    return;
  }
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) {
    if (value !== undefined && value !== null) tally.chars += 1;
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) walk(item, tally, depth + 1);
    return;
  }
  const object = value as Record<string, unknown>;
  // A text block, the common case, is read directly.
  if (object.type === 'text' && typeof object.text === 'string') {
    tally.chars += object.text.length;
    return;
  }
  if (media(object, tally)) return;
  for (const key in object) {
    tally.chars += key.length;
    walk(object[key], tally, depth + 1);
  }
}

/**
 * Default estimator for Messages, chat completions and rerank bodies. Input: ceil(characters / 3)
 * of the system, the messages (text, tool calls and results, thinking) and the tool definitions,
 * plus 8 per message, 1,600 per image and one per 25 base64 characters of a PDF; for rerank, the
 * query counts once per document, and a search unit per 100 documents begun. Output: `max_tokens` (or `max_completion_tokens`), the most the
 * upstream may produce. It reads lengths and never copies text: its cost grows with the number
 * of parts, not their size.
 */
export const defaultEstimator: Estimator = (body) => {
  const b = (body ?? {}) as Record<string, unknown>;
  const tally: Tally = { chars: 0, tokens: 0 };
  walk(b.system, tally, 0);
  walk(b.tools, tally, 0);
  if (Array.isArray(b.messages)) {
    for (const m of b.messages) walk((m as { content?: unknown } | null)?.content, tally, 1);
    tally.tokens += PER_MESSAGE_OVERHEAD * b.messages.length;
  }
  let searchUnits = 0;
  if (Array.isArray(b.documents)) {
    const query = typeof b.query === 'string' ? b.query.length : 0;
    walk(b.documents, tally, 0);
    tally.chars += query * b.documents.length;
    searchUnits = Math.ceil(b.documents.length / DOCUMENTS_PER_SEARCH_UNIT);
  }
  const max = typeof b.max_tokens === 'number' ? b.max_tokens : typeof b.max_completion_tokens === 'number' ? b.max_completion_tokens : 0;
  const estimate: TokenEstimate = { inputTokens: Math.ceil(tally.chars / CHARS_PER_TOKEN) + tally.tokens, outputTokens: Math.max(0, Math.floor(max)) };
  if (searchUnits > 0) estimate.searchUnits = searchUnits;
  return estimate;
};

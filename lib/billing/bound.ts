/**
 * The most a request can cost, before the upstream call: what a budget holds, so that no budget is
 * ever exceeded. Unlike the admission estimate (estimate.ts) it never guesses low:
 * - input tokens ≤ the UTF-8 bytes of the whole body as JSON (every text the model reads, its tool
 *   definitions, and the keys and punctuation around them: a byte-level tokenizer makes at most one
 *   token per byte), plus FRAMING_TOKENS for what the provider adds (role markers, its tool-use
 *   prompt), plus a fixed bound per image and per document (their data is not text);
 * - output tokens ≤ `max_tokens`;
 * - server tools bounded (server-tools.ts): with U uses allowed, each bringing back at most
 *   `searchTokens`, the upstream samples at most U + 1 times, each reading at most the request and
 *   every use's input: input ≤ (U + 1) × (request + U × searchTokens);
 * - rerank search units (Cohere: one query over up to 100 documents, a document split into chunks of
 *   500 tokens with the query): each document makes at most ceil(bytes / (500 − query bytes)) chunks;
 * - every input token priced at the highest input-side price the model can bill (fresh input, cache
 *   reads, 5-minute and 1-hour cache writes, under every upstream format's defaults), every output
 *   token at the output price, every search and search unit at its price.
 */
import type { Pricing, UpstreamFormat } from './figures';
import { PICO_PER_UNIT, toPico } from './money';
import { ratesOf } from './pricing';
import { boundServerTools, type ToolBounds } from './server-tools';

/** Tokens a provider may add to any request around what it sends (role markers, a tool-use system prompt). */
export const FRAMING_TOKENS = 2_048;

/** What the bound counts for media, in tokens each. */
export interface MediaBounds {
  /** An image (any source). */
  imageTokens: number;
  /** A document whose data is not text (a base64 or URL PDF, a file id). */
  documentTokens: number;
}

/** What a request's bound counts for what is not text: media and server tools. */
export type BoundSettings = MediaBounds & ToolBounds;

/** A request's bound: tokens and searches, or the field that makes it unbounded. */
export type RequestBound = { inputTokens: number; outputTokens: number; searches: number; searchUnits: number } | { unbounded: string };

/** Tokens of one Cohere rerank chunk, the query's included; and documents per search unit. */
const CHUNK_TOKENS = 500;
const DOCUMENTS_PER_UNIT = 100;

/** The most search units a rerank body can cost: every chunk a document may be split into, counted as a document. */
function searchUnitsOf(query: number, documents: readonly unknown[]): number {
  const room = Math.max(1, CHUNK_TOKENS - query);
  let chunks = 0;
  for (const d of documents) chunks += Math.max(1, Math.ceil(Buffer.byteLength(typeof d === 'string' ? d : JSON.stringify(d) ?? '', 'utf8') / room));
  return Math.ceil(chunks / DOCUMENTS_PER_UNIT);
}

const MAX_DEPTH = 64;

interface Tally {
  bytes: number;
  tokens: number;
}

/** Adds a block that is media: its tokens, not its data's bytes; false when the block is no media. */
function media(block: Record<string, unknown>, tally: Tally, bounds: MediaBounds): boolean {
  if (block.type === 'image') {
    tally.tokens += bounds.imageTokens;
    return true;
  }
  if (block.type !== 'document') return false;
  const source = block.source as { type?: unknown } | undefined;
  if (source?.type === 'text' || source?.type === 'content') return false; // text the model reads as it is
  tally.tokens += bounds.documentTokens;
  return true;
}

/** Adds the bytes a value takes as JSON (strings by their UTF-8 bytes), media by their bound. */
function walk(value: unknown, tally: Tally, bounds: MediaBounds, depth: number): void {
  if (typeof value === 'string') {
    tally.bytes += Buffer.byteLength(value, 'utf8') + 3; // quotes and a separator
    return;
  }
  if (typeof value !== 'object' || value === null) {
    tally.bytes += String(value).length + 1;
    return;
  }
  if (depth > MAX_DEPTH) {
    tally.bytes += Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
    return;
  }
  tally.bytes += 2;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, tally, bounds, depth + 1);
    return;
  }
  const object = value as Record<string, unknown>;
  if (media(object, tally, bounds)) return;
  for (const key in object) {
    tally.bytes += Buffer.byteLength(key, 'utf8') + 4;
    walk(object[key], tally, bounds, depth + 1);
  }
}

/**
 * The bound of a Messages body (what every LLM route hands on) or a rerank body (the query is read
 * once per document; no output). Runs only for a request under a budget; it bounds the body's
 * server tools in place first (their `max_uses`), so what goes upstream is what was bounded.
 */
export function requestBound(body: unknown, bounds: BoundSettings): RequestBound {
  const b = (body ?? {}) as Record<string, unknown>;
  const tools = boundServerTools(b, bounds);
  if ('unbounded' in tools) return tools;
  const tally: Tally = { bytes: 0, tokens: FRAMING_TOKENS };
  let searchUnits = 0;
  if (Array.isArray(b.documents)) {
    const query = typeof b.query === 'string' ? Buffer.byteLength(b.query, 'utf8') + 3 : 0;
    tally.bytes += query * b.documents.length;
    searchUnits = searchUnitsOf(query, b.documents);
  }
  walk(b, tally, bounds, 0);
  const once = tally.bytes + tally.tokens;
  const max = typeof b.max_tokens === 'number' ? b.max_tokens : 0;
  return { inputTokens: (tools.uses + 1) * (once + tools.uses * bounds.searchTokens), outputTokens: Math.max(0, Math.ceil(max)), searches: tools.searches, searchUnits };
}

/** Every format a price default is taken for (undefined: an adapter of no known format). */
const FORMATS: readonly (UpstreamFormat | undefined)[] = ['anthropic', 'openai', undefined];

/**
 * Whole minor units covering `inputTokens` at the highest input-side rate the pricing bills under
 * any upstream format (a failover group may serve from either), `outputTokens` at the output rate
 * and `searches` at the search price; 0 for a free model.
 */
export function boundAmount(inputTokens: number, outputTokens: number, pricing: Pricing | undefined, searches = 0, searchUnits = 0): number {
  if (!pricing) return 0;
  let input = 0;
  let output = 0;
  let search = 0;
  let unit = 0;
  for (const format of FORMATS) {
    const r = ratesOf(pricing, format);
    input = Math.max(input, r.inputTokens, r.cacheReadInputTokens, r.cacheWrite5mInputTokens, r.cacheWrite1hInputTokens);
    output = Math.max(output, r.outputTokens);
    search = Math.max(search, r.webSearchRequests);
    unit = Math.max(unit, r.searchUnits);
  }
  const pico = BigInt(inputTokens) * BigInt(input) + BigInt(outputTokens) * BigInt(output) + BigInt(searches) * BigInt(search) + BigInt(searchUnits) * BigInt(unit);
  return Number((pico + PICO_PER_UNIT - 1n) / PICO_PER_UNIT);
}

/** Whether an exact cost (a decimal string of minor units) is above a bound held in whole minor units. */
export function exceedsBound(cost: string, bound: number): boolean {
  return (toPico(cost) ?? 0n) > BigInt(bound) * PICO_PER_UNIT;
}

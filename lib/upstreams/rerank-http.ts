/** Shared shape of the built-in rerank adapters: build a provider body, parse its answer. */
import type { RerankRequest, RerankResult } from '../types';
import { badUpstreamAnswer } from './errors';
import { parseJson, postJson, readText, resolveHttp } from './http';
import { withRaw } from '../raw-text';
import { guardAdapter } from './guard';
import type { HttpAdapterOptions, RerankAdapter, UpstreamCallContext, UsageFigures } from './types';

/** What a provider format contributes: its path, its request body and how to read its answer. */
export interface RerankFormat {
  name: string;
  path: string;
  auth: (apiKey: string) => Record<string, string>;
  body: (request: RerankRequest) => Record<string, unknown>;
  /** Results (index, score) and the usage figures the provider reported, if any. */
  parse: (body: unknown) => { results: unknown; usage: UsageFigures };
  /**
   * The top-level member `parse` takes the results from, when they are `{index, relevance_score}`
   * objects: its text may then go to the client as it came (see resultListText). Default: none.
   */
  resultsKey?: string;
}

/** Number if it is a non-negative integer, else undefined. */
export const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

/** Plain object or an empty one. */
export const obj = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** Turns a provider's result list into RerankResult[] (`scoreKey` names the score field). */
export function toResults(list: unknown, scoreKey: string, name: string): RerankResult[] {
  if (!Array.isArray(list)) throw badUpstreamAnswer(`upstream ${name} sent no result list`);
  return list.map((item) => {
    const r = obj(item);
    return { index: r.index as number, relevance_score: r[scoreKey] as number };
  });
}

const NUMBER = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?';
const ITEM = `\\{"index":(?:0|[1-9][0-9]*),"relevance_score":${NUMBER}\\}`;
/** A compact list of `{"index":<integer>,"relevance_score":<number>}` objects and nothing else (no `]` inside). */
const RESULT_LIST = new RegExp(`^\\[(?:${ITEM}(?:,${ITEM})*)?\\]$`);

/**
 * The text of `body`'s top-level member `key` when it is a compact list of results in the
 * gateway's own shape, or undefined. Sound without a second parse: with no backslash in the
 * body every string is written as it reads, so a `"<key>"` that occurs once is that member's
 * key; the list pattern admits no `]` inside, so the first one closes it; and it admits no
 * other field, no repeated key and no index written as `1.0`, so any JSON reader gets the
 * very values JSON.parse gave. Costs about 3 µs for 100 results, against 29–39 µs to
 * copy, sort and serialise them again (one-off microbenchmark; −36.2 ± 16.9 µs per request by `BENCH_AB`).
 */
export function resultListText(body: string, key: string): string | undefined {
  if (body.includes('\\')) return undefined;
  const name = `"${key}"`;
  const at = body.indexOf(name);
  if (at < 0 || body.includes(name, at + name.length)) return undefined;
  const start = at + name.length + 1;
  if (body.charCodeAt(start - 1) !== 58 /* : */ || body.charCodeAt(start) !== 91 /* [ */) return undefined;
  const list = body.slice(start, body.indexOf(']', start) + 1);
  return RESULT_LIST.test(list) ? list : undefined;
}

/** Builds a RerankAdapter from a provider format. */
export function createRerankAdapter(options: HttpAdapterOptions, format: RerankFormat): RerankAdapter {
  const http = resolveHttp(options, format.name, format.auth);
  async function rerank(request: RerankRequest, ctx: UpstreamCallContext): Promise<RerankResult[]> {
    const open = await postJson(http, format.path, format.body(request), ctx);
    const text = await readText(open);
    const { results, usage } = format.parse(parseJson(text, http.name));
    ctx.usage.report(usage);
    ctx.usage.complete();
    // Already in the gateway's shape: the parsed list itself, marked with its text (unchanged).
    const own = format.resultsKey === undefined || !Array.isArray(results) ? undefined : resultListText(text, format.resultsKey);
    return own === undefined ? toResults(results, 'relevance_score', http.name) : withRaw(results as RerankResult[], own);
  }
  return guardAdapter({ kind: 'rerank' as const, name: http.name, rerank }, http.redact);
}

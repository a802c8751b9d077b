/** Shared shape of the built-in rerank adapters: build a provider body, parse its answer. */
import type { RerankRequest, RerankResult } from '../types';
import { badUpstreamAnswer } from './errors';
import { postJson, readJson, resolveHttp } from './http';
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

/** Builds a RerankAdapter from a provider format. */
export function createRerankAdapter(options: HttpAdapterOptions, format: RerankFormat): RerankAdapter {
  const http = resolveHttp(options, format.name, format.auth);
  async function rerank(request: RerankRequest, ctx: UpstreamCallContext): Promise<RerankResult[]> {
    const open = await postJson(http, format.path, format.body(request), ctx);
    const { results, usage } = format.parse(await readJson(open, http.name));
    ctx.usage.report(usage);
    ctx.usage.complete();
    return toResults(results, 'relevance_score', http.name);
  }
  return guardAdapter({ kind: 'rerank' as const, name: http.name, rerank }, http.redact);
}

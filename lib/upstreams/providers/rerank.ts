/** What every built-in rerank adapter shares: build a provider body, parse its answer into results and usage. */
import type { RerankRequest, RerankResult, UsageFigures } from '../../types';
import { badUpstreamAnswer } from '../../foundation/answer-errors';
import { postJson, readJson } from '../http/client';
import { resolveHttp } from '../http/options';
import { guardAdapter } from '../http/redact';
import type { HttpAdapterOptions, RerankAdapter, UpstreamCallContext } from '../types';

/** What a provider format contributes: its path, its request body and how to read its answer. */
export interface RerankFormat {
  name: string;
  path: string;
  auth: (apiKey: string) => Record<string, string>;
  body: (request: RerankRequest) => Record<string, unknown>;
  /** Results (index, score) and the usage figures the provider reported, if any. */
  parse: (body: unknown, name: string) => { results: RerankResult[]; usage: UsageFigures };
}

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
export function createRerankAdapter(options: HttpAdapterOptions, format: RerankFormat, own: readonly string[] = []): RerankAdapter {
  const http = resolveHttp(options, format.name, format.auth, own);
  async function rerank(request: RerankRequest, ctx: UpstreamCallContext): Promise<RerankResult[]> {
    const open = await postJson(http, format.path, format.body(request), ctx);
    const { results, usage } = format.parse(await readJson(open, http.name), http.name);
    ctx.usage.report(usage);
    ctx.usage.complete();
    return results;
  }
  return guardAdapter({ kind: 'rerank' as const, name: http.name, endpoint: http.url(format.path), rerank }, http.redact);
}

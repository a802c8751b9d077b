/** proxyRerank(): ranks documents through the model's rerank adapter and answers in one shape for every provider. */
import type { RequestHandler } from 'express';
import { answerModel, gatewayContext } from '../context';
import type { RerankRequest, RerankResult } from '../types';
import { badUpstreamAnswer } from '../foundation/answer-errors';
import { modelFor, startCall } from './run-call';
import { sendJson } from '../wire/send-json';

/** The gateway's rerank answer. */
export interface RerankResponse {
  id: string;
  model: string;
  results: RerankResult[];
  /** Figures the upstream reported; null where it reported none. */
  usage: { input_tokens: number | null; search_units: number | null };
  /** Cohere-style metadata, so the cohere-ai SDK sees its usual fields. */
  meta: { api_version: { version: string }; billed_units: { input_tokens?: number; search_units?: number } };
}

/** Highest relevance first; equal scores in index order. */
const byRank = (a: RerankResult, b: RerankResult): number => b.relevance_score - a.relevance_score || a.index - b.index;

/**
 * Sorts the adapter's results by relevance (highest first), checks every index, keeps the top
 * `top_n` (all documents when `top_n` is absent or larger than their number), and adds
 * `document: {text}` from the caller's own documents only when `return_documents` is true.
 */
export function shapeResults(results: RerankResult[], request: RerankRequest, name: string): RerankResult[] {
  if (!Array.isArray(results)) throw badUpstreamAnswer(`upstream ${name} returned no result list`);
  const count = request.documents.length;
  for (const r of results) {
    if (!Number.isInteger(r?.index) || r.index < 0 || r.index >= count || typeof r.relevance_score !== 'number' || !Number.isFinite(r.relevance_score)) {
      throw badUpstreamAnswer(`upstream ${name} returned an invalid result: ${JSON.stringify(r).slice(0, 500)}`);
    }
  }
  const cut = request.top_n !== undefined && request.top_n < results.length;
  const ranked = results.map((r) => {
    const out: RerankResult = { index: r.index, relevance_score: r.relevance_score };
    if (request.return_documents === true) out.document = { text: request.documents[r.index] as string };
    return out;
  });
  ranked.sort(byRank);
  return cut ? ranked.slice(0, request.top_n) : ranked;
}

/** Needs `resolveModel({capability: 'rerank'})` before it; serves `/v1/rerank` and `/v2/rerank` alike. */
export function proxyRerank(): RequestHandler {
  return function proxyRerankMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const resolved = modelFor(ctx, 'rerank', next);
    if (!resolved) return;
    const { model, adapter } = resolved;
    const body = req.body as RerankRequest;
    const request: RerankRequest = { ...body, model: model.upstreamModel ?? model.id };
    const version = req.path.startsWith('/v2') ? '2' : '1';
    startCall(ctx, res, next, adapter.name, async (call) => {
      const results = shapeResults(await adapter.rerank(request, call), body, adapter.name);
      const usage = ctx.usage.snapshot();
      const reported = usage.provenance !== 'none';
      const tokens = reported && usage.provenance !== 'units_only' ? usage.inputTokens : null;
      const units = reported && usage.searchUnits > 0 ? usage.searchUnits : null;
      const billed: RerankResponse['meta']['billed_units'] = {};
      if (tokens !== null) billed.input_tokens = tokens;
      if (units !== null) billed.search_units = units;
      const response: RerankResponse = {
        id: ctx.requestId, model: answerModel(ctx), results,
        usage: { input_tokens: tokens, search_units: units },
        meta: { api_version: { version }, billed_units: billed },
      };
      sendJson(res, response);
    });
  };
}

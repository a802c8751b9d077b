/** Built-in rerank adapters: Cohere (v1, v2), Jina, Voyage and Hugging Face TEI. */
import { GatewayConfigError } from '../../foundation/config-errors';
import type { RerankRequest } from '../../types';
import { baseVersion } from '../http/options';
import { reportedFigure as count } from '../../billing/reported-figure';
import { createRerankAdapter, obj, toResults } from './rerank';
import type { UsageFigures } from '../../types';
import type { HttpAdapterOptions, RerankAdapter } from '../types';

const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
const topN = (request: RerankRequest, field: string): Record<string, number> => (request.top_n === undefined ? {} : { [field]: request.top_n });

/** Options of the Cohere adapter. */
export interface CohereAdapterOptions extends HttpAdapterOptions {
  /** Cohere API version to call. Default: the base URL's ("https://api.cohere.com/v1"), else "v2". */
  apiVersion?: 'v1' | 'v2';
}

/**
 * Cohere rerank (`/v2/rerank` or `/v1/rerank`). Usage is its `search_units`, and input tokens
 * when Cohere reports them (`meta.billed_units.input_tokens` or `meta.tokens.input_tokens`);
 * search units are billed at the model's `searchUnit` price, or flagged for review without one.
 */
export function cohereAdapter(options: CohereAdapterOptions): RerankAdapter {
  const inBase = typeof options?.baseURL === 'string' ? baseVersion(options.baseURL) : undefined;
  const version = options?.apiVersion ?? (inBase === 'v1' ? 'v1' : 'v2');
  if (version !== 'v1' && version !== 'v2') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'cohere adapter: option "apiVersion" must be "v1" or "v2".');
  if (inBase !== undefined && inBase !== version) {
    throw new GatewayConfigError('ERR_MGW_CONFLICTING_OPTIONS', `cohere adapter: option "baseURL" ends in /${inBase} but "apiVersion" is "${version}"; drop the version from baseURL or make them agree.`);
  }
  return createRerankAdapter(options, {
    name: 'cohere', path: `/${version}/rerank`, auth: bearer,
    body: (r) => ({
      model: r.model, query: r.query, documents: r.documents, ...topN(r, 'top_n'),
      ...(version === 'v1' ? { return_documents: false } : {}),
      ...(r.max_tokens_per_doc !== undefined && version === 'v2' ? { max_tokens_per_doc: r.max_tokens_per_doc } : {}),
    }),
    parse: (body, name) => {
      const meta = obj(obj(body).meta);
      const billed = obj(meta.billed_units);
      const usage: UsageFigures = {};
      const tokens = count(billed.input_tokens) ?? count(obj(meta.tokens).input_tokens);
      if (tokens !== undefined) usage.inputTokens = tokens;
      const units = count(billed.search_units);
      if (units !== undefined) usage.searchUnits = units;
      return { results: toResults(obj(body).results, 'relevance_score', name), usage };
    },
  }, ['apiVersion']);
}

const totalTokens = (body: unknown): UsageFigures => {
  const tokens = count(obj(obj(body).usage).total_tokens);
  return tokens === undefined ? {} : { inputTokens: tokens };
};

/** Jina rerank (`/v1/rerank`); usage from `usage.total_tokens`. */
export function jinaAdapter(options: HttpAdapterOptions): RerankAdapter {
  return createRerankAdapter(options, {
    name: 'jina', path: '/v1/rerank', auth: bearer,
    body: (r) => ({ model: r.model, query: r.query, documents: r.documents, ...topN(r, 'top_n'), return_documents: false }),
    parse: (body, name) => ({ results: toResults(obj(body).results, 'relevance_score', name), usage: totalTokens(body) }),
  });
}

/** Voyage rerank (`/v1/rerank`): `top_k`, results under `data`; usage from `usage.total_tokens`. */
export function voyageAdapter(options: HttpAdapterOptions): RerankAdapter {
  return createRerankAdapter(options, {
    name: 'voyage', path: '/v1/rerank', auth: bearer,
    body: (r) => ({ model: r.model, query: r.query, documents: r.documents, ...topN(r, 'top_k'), return_documents: false }),
    parse: (body, name) => ({ results: toResults(obj(body).data, 'relevance_score', name), usage: totalTokens(body) }),
  });
}

/**
 * Hugging Face text-embeddings-inference (`/rerank`): `texts`, a bare array of `{index, score}`,
 * no model and no usage (so every TEI request is flagged for review).
 */
export function teiAdapter(options: HttpAdapterOptions): RerankAdapter {
  return createRerankAdapter(options, {
    name: 'tei', path: '/rerank', auth: bearer,
    body: (r) => ({ query: r.query, texts: r.documents, raw_scores: false, return_text: false }),
    parse: (body, name) => ({ results: toResults(body, 'score', name), usage: {} }),
  });
}

/** lib/upstreams/providers/rerank-providers.ts: each provider's path, body and usage fields, against one fake on 127.0.0.1. */
import { cohereAdapter, jinaAdapter, teiAdapter, voyageAdapter, type RerankAdapter } from '../../../../lib';
import { UsageTracker } from '../../../../lib/billing/usage';
import { startFake, type FakeServer } from '../../../helpers/fake-server';

/** What each provider answers, by path. */
const ANSWERS: Record<string, unknown> = {
  '/v2/rerank': { results: [{ index: 1, relevance_score: 0.9 }], meta: { billed_units: { search_units: 1, input_tokens: 12 } } },
  '/v1/rerank': { results: [{ index: 1, relevance_score: 0.9 }], data: [{ index: 1, relevance_score: 0.9 }], usage: { total_tokens: 12 }, meta: { billed_units: { search_units: 1 } } },
  '/rerank': [{ index: 1, score: 0.9 }],
};

describe('the built-in rerank adapters', () => {
  let fake: FakeServer;
  beforeAll(async () => {
    fake = await startFake((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ANSWERS[req.path]));
    });
  });
  afterAll(() => fake.close());

  const request = { model: 'r', query: 'q', documents: ['a', 'b'], top_n: 1 };
  const cases: Array<[string, (url: string) => RerankAdapter, string, object, object]> = [
    ['cohere v2', (url) => cohereAdapter({ baseURL: url, apiKey: 'k' }), '/v2/rerank', { model: 'r', query: 'q', documents: ['a', 'b'], top_n: 1 }, { inputTokens: 12, provenance: 'confirmed' }],
    ['cohere v1', (url) => cohereAdapter({ baseURL: url, apiKey: 'k', apiVersion: 'v1' }), '/v1/rerank', { top_n: 1, return_documents: false }, { inputTokens: 0, searchUnits: 1, provenance: 'units_only' }],
    ['jina', (url) => jinaAdapter({ baseURL: url, apiKey: 'k' }), '/v1/rerank', { model: 'r', top_n: 1, return_documents: false }, { inputTokens: 12, provenance: 'confirmed' }],
    ['voyage', (url) => voyageAdapter({ baseURL: url, apiKey: 'k' }), '/v1/rerank', { model: 'r', top_k: 1, return_documents: false }, { inputTokens: 12, provenance: 'confirmed' }],
    ['tei', (url) => teiAdapter({ baseURL: url, apiKey: 'k' }), '/rerank', { query: 'q', texts: ['a', 'b'] }, { provenance: 'none' }],
  ];

  it.each(cases)('%s posts to its path with its body and reads its results and usage', async (_name, make, path, body, usage) => {
    const before = fake.received.length;
    const tracker = new UsageTracker();
    const results = await make(fake.url).rerank(request, { signal: new AbortController().signal, requestId: 'req_1', usage: tracker });
    const sent = fake.received[before];
    expect(sent?.path).toBe(path);
    expect(sent?.body).toMatchObject(body);
    expect(sent?.headers.authorization).toBe('Bearer k');
    expect(results).toEqual([{ index: 1, relevance_score: 0.9 }]);
    expect(tracker.snapshot()).toMatchObject(usage);
  });
});

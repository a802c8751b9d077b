/**
 * Reviews as the admin API shows them, on both stores, every answer checked against the OpenAPI document: why each request
 * was flagged (its provenance, its log line's detail) and what its observed usage costs at the model's prices (exact, the whole
 * charge, what is still outstanding, the figures the model does not price), in the list, one by id, the resolve answer and
 * the request's own view.
 */
import express from 'express';
import { anthropicAdapter, cohereAdapter, createAdminRouter, createGatewayRouter, type ModelEntry } from '../../lib';
import { checkAgainstDocument } from '../helpers/admin-document';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startRerankFake } from '../helpers/fake-rerank';
import { UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { postMessages } from '../helpers/gateway';
import { listen } from '../helpers/local';
import { BOTH_STORES, type MadeStore } from '../helpers/services';

const TOKEN = 'admin-reviews-token-0123456789';
let anthropic: FakeServer;
let cohere: FakeServer;
beforeAll(async () => { [anthropic, cohere] = await Promise.all([startAnthropicFake(), startRerankFake('cohere')]); });
afterAll(async () => { await Promise.all([anthropic.close(), cohere.close()]); });

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let made: MadeStore;
  let server: Awaited<ReturnType<typeof listen>>;
  let key: string;

  beforeAll(async () => {
    made = await make();
    const claude = anthropicAdapter({ baseURL: anthropic.url, apiKey: UPSTREAM_KEY });
    const models: ModelEntry[] = [
      // 0.3 per input token, 1.5 per output token.
      { id: 'claude-midstream-error', capability: 'llm', upstream: claude, pricing: { input: 300_000, output: 1_500_000 } },
      { id: 'claude-huge-usage', capability: 'llm', upstream: claude, pricing: { input: 1_000_000, output: 1 } },
      { id: 'claude-json', capability: 'llm', upstream: claude, pricing: { input: 300_000, output: 1_500_000 } },
      { id: 'cohere-units', capability: 'rerank', upstream: cohereAdapter({ baseURL: cohere.url, apiKey: UPSTREAM_KEY }), pricing: { input: 5 } },
    ];
    const gateway = createGatewayRouter({ store: made.store, models });
    const app = express();
    app.use('/admin', createAdminRouter({ store: made.store, models: gateway.models, tokens: [{ name: 'ops', token: TOKEN, access: 'write' }] }));
    app.use(gateway);
    server = await listen(app);
    key = `sk-reviews-${Math.random().toString(36).slice(2)}-0123456789`;
    await made.store.addKey(key, { id: 'flagged' });
    await made.store.credit({ callerId: 'flagged', amount: 1_000_000, idempotencyKey: 'flagged-open' });
  });
  afterAll(async () => {
    await server.close();
    await made.drop();
  });

  async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await fetch(`${server.url}/admin${path}`, {
      method, headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await res.json()) as unknown;
    checkAgainstDocument(method, path.split('?')[0] as string, res.status, parsed);
    return { status: res.status, body: parsed };
  }
  /** The request's review once it is settled and logged. */
  async function reviewOf(requestId: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    for (let i = 0; i < 200; i++) {
      const one = await admin('GET', `/requests/${requestId}`);
      if (one.status === 200) return one.body.review;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no log entry for ${requestId}`);
  }
  const messages = async (model: string, stream: boolean): Promise<string> => {
    const res = await postMessages(server.url, key, model, { stream });
    await res.text();
    return res.headers.get('request-id') as string;
  };

  it('a stream cut short: why (partial, the detail), its observed cost exact, the whole charge, and nothing outstanding once the settlement charged it', async () => {
    const requestId = await messages('claude-midstream-error', true);
    const review = await reviewOf(requestId);
    // 25 input tokens at 0.3 (output only from a final usage, which never came): 7.5; the settlement charged 7 and carried 0.5.
    expect(review).toMatchObject({
      requestId, model: 'claude-midstream-error', charge: 7, usage: { inputTokens: 25, outputTokens: 0, provenance: 'partial' },
      flagged: 'its stream ended before the upstream\'s final usage: only the figures it confirmed were charged', detail: expect.any(String),
      observed: { cost: '7.5', charge: 7, outstanding: 0, unpriced: [] },
    });
    expect((await admin('GET', `/reviews/${requestId}`)).body).toEqual(review);
  });

  it('an implausible figure: why, the figure as observed, and its cost at the model\'s prices (the operator decides); resolving shows the same view', async () => {
    const requestId = await messages('claude-huge-usage', false);
    const review = await reviewOf(requestId);
    // Output 1e20 kept bounded to 2^53 - 1, at a millionth of a unit each (9,007,199,254.740991); 25 input tokens at 1 each.
    expect(review).toMatchObject({
      charge: 0, usage: { inputTokens: 25, outputTokens: Number.MAX_SAFE_INTEGER, provenance: 'implausible' },
      flagged: 'the upstream reported a usage figure no request could have: kept as observed, charged 0',
      detail: 'implausible usage: outputTokens 100000000000000000000 (beyond 2^53)',
      observed: { cost: '9007199279.740991', charge: 9_007_199_279, outstanding: 9_007_199_279, unpriced: [] },
    });
    const listed = (await admin('GET', '/reviews?callerId=flagged')).body.items as Array<{ requestId: string }>;
    expect(listed.find((r) => r.requestId === requestId)).toEqual(review);
    const resolved = await admin('POST', `/reviews/${requestId}/resolve`, { action: 'charge', amount: 25, reason: 'the input was right; the output figure was not' });
    expect(resolved.body).toMatchObject({ applied: true, review: { ...review, resolution: { action: 'charge', amount: 25 }, observed: { ...review.observed, outstanding: 9_007_199_279 - 25 } } });
    expect((await admin('GET', `/reviews/${requestId}`)).body).toEqual(resolved.body.review);
  });

  it('search units the model does not price: why, and a cost that leaves them out, named', async () => {
    const res = await fetch(`${server.url}/v1/rerank`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'cohere-units', query: 'q', documents: ['a', 'b'] }) });
    await res.text();
    const review = await reviewOf(res.headers.get('request-id') as string);
    expect(review).toMatchObject({
      charge: 0, usage: { searchUnits: 1, provenance: 'units_only' },
      flagged: 'the upstream reported only search units, and the model set no searchUnit price for them',
      observed: { cost: '0', charge: 0, outstanding: 0, unpriced: ['searchUnits'] },
    });
    // Priced by the catalog as it serves: a price set since shows what the units cost; a model withdrawn, no cost at all.
    const models = (await admin('GET', '/models')).body.items as Array<{ id: string; pricing: unknown }>;
    const priced = models.map((m) => (m.id === 'cohere-units' ? { ...m, pricing: { input: 5, searchUnit: 2_500 } } : m));
    expect((await admin('PUT', '/models', { models: priced })).status).toBe(200);
    expect((await admin('GET', `/reviews/${review.requestId}`)).body.observed).toEqual({ cost: '2.5', charge: 2, outstanding: 2, unpriced: [] });
    expect((await admin('PUT', '/models', { models: models.filter((m) => m.id !== 'cohere-units') })).status).toBe(200);
    expect((await admin('GET', `/reviews/${review.requestId}`)).body).toMatchObject({ flagged: expect.any(String), observed: null });
    expect((await admin('PUT', '/models', { models })).status).toBe(200);
  });

  it('a billed request has no review; an unknown one is a 404 naming it', async () => {
    const requestId = await messages('claude-json', false);
    expect(await reviewOf(requestId)).toBeNull();
    expect(await admin('GET', `/reviews/${requestId}`)).toMatchObject({ status: 404, body: { error: { type: 'not_found_error', message: `requestId: no review for ${requestId}` } } });
  });
});

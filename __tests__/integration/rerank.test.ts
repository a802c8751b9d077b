/** POST /v1/rerank and /v2/rerank: every provider format, one answer shape, token-first billing, search units at their price, review flags. */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CohereClient, CohereClientV2 } from 'cohere-ai';
import { cohereAdapter, jinaAdapter, teiAdapter, voyageAdapter } from '../../lib';
import type { ModelEntry, RequestLogEntry } from '../../lib';
import { SECRET_MARKER, UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { score, startRerankFake } from '../helpers/fake-rerank';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { BOTH_STORES, type MadeStore } from '../helpers/services';
import { buildModels } from '../../lib/cli/build';
import { loadConfig } from '../../lib/cli/config';

const fakes: Record<string, FakeServer> = {};
let gw: RunningGateway;
const PRICE = { input: 1_000_000 }; // one minor unit per input token
const DOCS = ['alpha', 'bravo', 'charlie', 'delta'];
const ORDER = [1, 3, 2, 0]; // by score: 0.9, 0.7, 0.5, 0.2

beforeAll(async () => {
  for (const f of ['cohere', 'jina', 'voyage', 'tei'] as const) fakes[f] = await startRerankFake(f);
  const opts = (f: string) => ({ baseURL: fakes[f]!.url, apiKey: UPSTREAM_KEY });
  const entry = (id: string, upstream: ModelEntry['upstream'], upstreamModel = id): ModelEntry => ({ id, capability: 'rerank', upstream, upstreamModel, pricing: PRICE });
  gw = await startGateway({
    models: [
      entry('cohere-units', cohereAdapter(opts('cohere'))),
      entry('cohere-tokens', cohereAdapter(opts('cohere'))),
      entry('cohere-meta-tokens', cohereAdapter(opts('cohere'))),
      entry('cohere-v1-units', cohereAdapter({ ...opts('cohere'), apiVersion: 'v1' })),
      entry('jina', jinaAdapter(opts('jina')), 'jina-reranker-v2'),
      entry('voyage', voyageAdapter(opts('voyage')), 'rerank-2'),
      entry('tei', teiAdapter(opts('tei'))),
      entry('cohere-status-500', cohereAdapter(opts('cohere'))),
      entry('cohere-status-429', cohereAdapter(opts('cohere'))),
      entry('cohere-status-401', cohereAdapter(opts('cohere'))),
      entry('cohere-bad-index', cohereAdapter(opts('cohere'))),
      entry('cohere-sorted-tokens', cohereAdapter(opts('cohere'))),
      entry('cohere-own-text-tokens', cohereAdapter(opts('cohere'))),
      entry('cohere-own-text-escaped-tokens', cohereAdapter(opts('cohere'))),
    ],
  });
});
afterAll(async () => {
  await gw.close();
  await Promise.all(Object.values(fakes).map((f) => f.close()));
});

async function rerank(key: string, body: Record<string, unknown>, path = '/v1/rerank'): Promise<{ status: number; body: Record<string, unknown>; raw: string; text: string; requestId: string }> {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown>, raw: text, text: text + JSON.stringify([...res.headers]), requestId: res.headers.get('request-id') as string };
}

describe.each([
  ['cohere-tokens', 'cohere', 'billed', 42, 1], // tokens win; the units are kept as reported
  ['cohere-meta-tokens', 'cohere', 'billed', 40, 1],
  ['jina', 'jina', 'billed', 33, null],
  ['voyage', 'voyage', 'billed', 31, null],
  ['cohere-units', 'cohere', 'needs_review', null, 1],
  ['cohere-v1-units', 'cohere', 'needs_review', null, 1],
  ['tei', 'tei', 'needs_review', null, null],
] as const)('%s', (model, fake, billing, tokens, units) => {
  it('ranks by relevance, one answer shape, billed on confirmed tokens or flagged for review', async () => {
    const { key, id } = addCaller(gw.store, { balance: 1000 });
    const res = await rerank(key, { model, query: 'which one', documents: DOCS, user: 'end-user-7' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: res.requestId, model, results: ORDER.map((index) => ({ index, relevance_score: score(index) })),
      usage: { input_tokens: tokens, search_units: units },
      meta: { api_version: { version: '1' }, billed_units: { ...(tokens === null ? {} : { input_tokens: tokens }), ...(units === null ? {} : { search_units: units }) } },
    });
    const entry = await logEntry(gw.store, res.requestId);
    expect(entry).toMatchObject({ endpoint: 'rerank', billingStatus: billing, charge: tokens ?? 0, user: 'end-user-7', model });
    expect(gw.store.getBalance(id)).toBe(1000 - (tokens ?? 0));
    expect(gw.store.held(id)).toBe(0);
    const review = gw.store.getReviews().find((r) => r.requestId === res.requestId);
    if (billing === 'needs_review') expect(review).toMatchObject({ callerId: id, model, charge: 0, usage: { searchUnits: units ?? 0 } });
    else expect(review).toBeUndefined();
    const sent = fakes[fake]!.received.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
  });
});

describe('request mapping per provider', () => {
  it('sends each provider its own field names', async () => {
    const { key } = addCaller(gw.store);
    await rerank(key, { model: 'voyage', query: 'q', documents: DOCS, top_n: 2 });
    expect(fakes.voyage!.received.at(-1)!.body).toEqual({ model: 'rerank-2', query: 'q', documents: DOCS, top_k: 2, return_documents: false });
    await rerank(key, { model: 'tei', query: 'q', documents: DOCS, top_n: 2 });
    expect(fakes.tei!.received.at(-1)).toMatchObject({ path: '/rerank', body: { query: 'q', texts: DOCS, raw_scores: false, return_text: false } });
    await rerank(key, { model: 'jina', query: 'q', documents: DOCS, top_n: 2 });
    expect(fakes.jina!.received.at(-1)!.body).toEqual({ model: 'jina-reranker-v2', query: 'q', documents: DOCS, top_n: 2, return_documents: false });
    await rerank(key, { model: 'cohere-units', query: 'q', documents: DOCS, max_tokens_per_doc: 100 });
    expect(fakes.cohere!.received.at(-1)).toMatchObject({ path: '/v2/rerank', body: { model: 'cohere-units', query: 'q', documents: DOCS, max_tokens_per_doc: 100 } });
  });
});

describe('top_n and return_documents', () => {
  it('top_n keeps the best n; larger than the documents returns them all', async () => {
    const { key } = addCaller(gw.store);
    const two = await rerank(key, { model: 'jina', query: 'q', documents: DOCS, top_n: 2 });
    expect((two.body.results as Array<{ index: number }>).map((r) => r.index)).toEqual([1, 3]);
    const many = await rerank(key, { model: 'voyage', query: 'q', documents: DOCS, top_n: 50 });
    expect((many.body.results as unknown[]).length).toBe(4);
  });

  it('document {text} is present only with return_documents: true, taken from the caller documents', async () => {
    const { key } = addCaller(gw.store);
    const withDocs = await rerank(key, { model: 'jina', query: 'q', documents: DOCS, return_documents: true });
    expect(withDocs.body.results).toEqual(ORDER.map((index) => ({ index, relevance_score: score(index), document: { text: DOCS[index] } })));
    const without = await rerank(key, { model: 'jina', query: 'q', documents: DOCS, return_documents: false });
    for (const r of without.body.results as Array<Record<string, unknown>>) expect(r).not.toHaveProperty('document');
  });
});

describe('the answer text', () => {
  /** The answer for DOCS from the Cohere fake reporting 42 tokens, in the order of the RerankResponse type. */
  const answer = (id: string, model: string, version = '1'): object => ({
    id, model, results: ORDER.map((index) => ({ index, relevance_score: score(index) })),
    usage: { input_tokens: 42, search_units: 1 }, meta: { api_version: { version }, billed_units: { input_tokens: 42, search_units: 1 } },
  });

  it('is what JSON.stringify writes of the gateway\'s answer, whatever the upstream\'s spelling', async () => {
    const { key, id } = addCaller(gw.store, { balance: 1000 });
    const sorted = await rerank(key, { model: 'cohere-sorted-tokens', query: 'q', documents: DOCS });
    expect(sorted.raw).toBe(JSON.stringify(answer(sorted.requestId, 'cohere-sorted-tokens')));
    const own = await rerank(key, { model: 'cohere-own-text-tokens', query: 'q', documents: DOCS }, '/v2/rerank');
    expect(own.raw).toBe(JSON.stringify(answer(own.requestId, 'cohere-own-text-tokens', '2')));
    expect(await logEntry(gw.store, own.requestId)).toMatchObject({ billingStatus: 'billed', charge: 42 });
    expect(gw.store.getBalance(id)).toBe(1000 - 84);
  });

  it.each([
    ['a top_n that cuts the list', { top_n: 2 }, 'cohere-own-text-tokens', (r: number[]) => r.slice(0, 2)],
    ['return_documents', { return_documents: true }, 'cohere-own-text-tokens', (r: number[]) => r],
    ['an escaped character anywhere in the body', {}, 'cohere-own-text-escaped-tokens', (r: number[]) => r],
  ])('%s: the list is built from the results', async (_, extra, model, order) => {
    const { key } = addCaller(gw.store);
    const res = await rerank(key, { model, query: 'q', documents: DOCS, ...extra });
    expect(res.status).toBe(200);
    expect(res.raw).not.toContain('0.90');
    expect(res.body.results).toEqual(order(ORDER).map((index) => ({
      index, relevance_score: score(index), ...('return_documents' in extra ? { document: { text: DOCS[index] } } : {}),
    })));
  });

  it('the cohere-ai v2 client reads the answer', async () => {
    const { key } = addCaller(gw.store);
    const v2 = new CohereClientV2({ token: key, environment: gw.url, maxRetries: 0 } as never);
    const r = await v2.rerank({ model: 'cohere-own-text-tokens', query: 'q', documents: DOCS });
    expect(r.results.map((x) => [x.index, x.relevanceScore])).toEqual(ORDER.map((i) => [i, score(i)]));
    expect(r.meta?.billedUnits?.inputTokens).toBe(42);
  });
});

describe('upstream errors', () => {
  it.each([
    ['cohere-status-500', 500, 'api_error'],
    ['cohere-status-429', 429, 'rate_limit_error'],
    ['cohere-status-401', 500, 'api_error'],
    ['cohere-bad-index', 500, 'api_error'],
  ])('%s -> %i %s, no upstream detail, hold released, not billed', async (model, status, type) => {
    const { key, id } = addCaller(gw.store, { balance: 1000 });
    const res = await rerank(key, { model, query: 'q', documents: DOCS });
    expect(res.status).toBe(status);
    expect((res.body.error as { type: string }).type).toBe(type);
    expect(res.text).not.toContain(SECRET_MARKER);
    expect(res.text).not.toContain(UPSTREAM_KEY);
    expect(await logEntry(gw.store, res.requestId)).toMatchObject({ status, errorCode: type });
    expect(gw.store.held(id)).toBe(0);
    expect(gw.store.getBalance(id)).toBe(1000);
  });
});

describe('the official cohere-ai SDK as a client', () => {
  it('v1 client (/v1/rerank) and v2 client (/v2/rerank) both work unchanged', async () => {
    const { key } = addCaller(gw.store);
    const v1 = new CohereClient({ token: key, environment: gw.url, maxRetries: 0 } as never);
    const r1 = await v1.rerank({ model: 'cohere-tokens', query: 'q', documents: DOCS, topN: 3, returnDocuments: true });
    expect(r1.results.map((r) => [r.index, r.relevanceScore, r.document?.text])).toEqual(ORDER.slice(0, 3).map((i) => [i, score(i), DOCS[i]]));
    expect(r1.meta?.billedUnits?.inputTokens).toBe(42);
    const v2 = new CohereClientV2({ token: key, environment: gw.url, maxRetries: 0 } as never);
    const r2 = await v2.rerank({ model: 'cohere-units', query: 'q', documents: DOCS, topN: 2 });
    expect(r2.results.map((r) => [r.index, r.relevanceScore])).toEqual([[1, 0.9], [3, 0.7]]);
    expect(r2.meta?.apiVersion?.version).toBe('2');
    expect(r2.meta?.billedUnits?.searchUnits).toBe(1);
  });
});

// Cohere reports only `search_units` (one per query of up to 100 documents): a searchUnit price bills them exactly.
// The priced model is examples/gateway.yaml's own `rerank`, read by the binary's config loader (200 per 1,000 search units).
describe.each(BOTH_STORES)('Cohere search units through the cohere-ai SDK, on %s', (_kind, makeStore) => {
  let made: MadeStore;
  let priced: RunningGateway;
  beforeAll(async () => {
    made = await makeStore();
    const env = { COHERE_BASE_URL: fakes.cohere!.url, COHERE_API_KEY: UPSTREAM_KEY, ANTHROPIC_API_KEY: 'unused', OPENAI_API_KEY: 'unused', DATABASE_URL: 'postgres://unused', REDIS_URL: 'redis://unused', ADMIN_TOKEN: 'unused-admin-token-0123456789', ADMIN_READ_TOKEN: 'unused-read-token-0123456789' };
    const sample = buildModels(loadConfig(path.join(__dirname, '..', '..', 'examples', 'gateway.yaml'), env)).models.find((m) => m.id === 'rerank') as ModelEntry;
    expect(sample.pricing).toEqual({ input: 0, searchUnit: 200 });
    priced = await startGateway({
      store: made.store as never,
      models: [sample, { ...sample, id: 'rerank-unpriced', pricing: { input: 5 } }],
    });
  });
  afterAll(async () => {
    await priced.close();
    await made.drop();
  });

  async function caller(balance: number): Promise<{ key: string; id: string }> {
    const id = `units-${randomBytes(6).toString('hex')}`;
    const key = `sk-units-${randomBytes(12).toString('hex')}`;
    await made.store.addKey(key, { id });
    if (balance > 0) await made.store.credit({ callerId: id, amount: balance, idempotencyKey: `opening-${id}` });
    return { key, id };
  }
  async function entryOf(requestId: string): Promise<RequestLogEntry> {
    for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 10))) {
      const [entry] = (await made.store.listRequests({ requestId })).items;
      if (entry) return entry;
    }
    throw new Error(`no log entry for ${requestId}`);
  }
  /** A rerank through the SDK (the v2 client, or the v1 client on /v1/rerank); the request id from its raw response. */
  async function sdkRerank(key: string, model: string, v1 = false): Promise<string> {
    const options = { token: key, environment: priced.url, maxRetries: 0 } as never;
    const { data, rawResponse } = await (v1 ? new CohereClient(options).rerank({ model, query: 'q', documents: DOCS }).withRawResponse()
      : new CohereClientV2(options).rerank({ model, query: 'q', documents: DOCS }).withRawResponse());
    expect(data.meta?.billedUnits?.searchUnits).toBe(1);
    return rawResponse.headers.get('request-id') as string;
  }

  it('the sample\'s searchUnit price bills each confirmed unit exactly: 0.2 a search, five searches charge 1 through the carry', async () => {
    const { key, id } = await caller(1000);
    const charges: number[] = [];
    for (let i = 0; i < 5; i++) {
      const entry = await entryOf(await sdkRerank(key, 'rerank', i % 2 === 1));
      expect(entry).toMatchObject({ endpoint: 'rerank', billingStatus: 'billed', cost: '0.2', usage: { searchUnits: 1, inputTokens: 0, provenance: 'units_only' } });
      charges.push(entry.charge);
      if (i === 2) expect(await made.store.getAccount(id)).toEqual({ balance: 1000, held: 0, carry: '0.6', ledger: 1000 });
    }
    expect(charges).toEqual([0, 0, 0, 0, 1]);
    expect(await made.store.getAccount(id)).toEqual({ balance: 999, held: 0, carry: '0', ledger: 999 });
    expect((await made.store.listReviews({ callerId: id })).items).toEqual([]);
  });

  it('search units without a searchUnit price are never billed from a guess: charged 0, flagged for review', async () => {
    const { key, id } = await caller(1000);
    const requestId = await sdkRerank(key, 'rerank-unpriced');
    expect(await entryOf(requestId)).toMatchObject({ billingStatus: 'needs_review', cost: '0', charge: 0, usage: { searchUnits: 1, provenance: 'units_only' } });
    expect(await made.store.getAccount(id)).toMatchObject({ balance: 1000, held: 0, carry: '0' });
    expect((await made.store.listReviews({ callerId: id })).items).toEqual([expect.objectContaining({ requestId, charge: 0, usage: expect.objectContaining({ searchUnits: 1 }) })]);
  });

  it('the hold covers the estimated search units: an empty balance is refused before the upstream call', async () => {
    const { key } = await caller(0);
    const before = fakes.cohere!.received.length;
    const res = await fetch(`${priced.url}/v2/rerank`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'rerank', query: 'q', documents: DOCS }) });
    expect(res.status).toBe(402);
    expect(fakes.cohere!.received.length).toBe(before);
  });
});

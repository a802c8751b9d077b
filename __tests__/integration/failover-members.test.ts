/**
 * A failover group across providers whose members each have their own upstream model and prices: the member that serves
 * is sent its own model name on every route (Messages JSON and stream, chat, Responses translated and passed through,
 * count_tokens, rerank) and bills the request at its own prices, exactly; the log's attempts name each member, the model
 * it was sent and its prices. The admin API shows each member's prices in effect, which are what a request it serves is
 * charged, and never a price no request is charged (a mixed group's cache prices at 1 × input).
 */
import Anthropic from '@anthropic-ai/sdk';
import express from 'express';
import OpenAI from 'openai';
import { anthropicAdapter, cohereAdapter, createAdminRouter, createGatewayRouter, failover, MemoryStore, openaiChatAdapter, openaiResponsesAdapter, type ModelEntry, type Pricing } from '../../lib';
import { costOf } from '../../lib/billing/pricing';
import { checkAgainstDocument } from '../helpers/admin-document';
import { sendJson, startAgentServer, type AgentServer } from '../helpers/fake-agent-server';
import { startOpenAIFake } from '../helpers/fake-openai';
import { startRerankFake } from '../helpers/fake-rerank';
import { message, responsesUsage, startResponsesFake, type ResponsesFake, type ResponsesTurn } from '../helpers/fake-responses';
import { failWith, startFake, UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { addCaller, logEntry, postMessages } from '../helpers/gateway';
import { listen } from '../helpers/local';

const ADMIN = 'admin-token-failover-members-0123';
// Each member's own prices (minor units per million tokens): one unit per token is 1_000_000.
const CLAUDE: Pricing = { input: 3_000_000, output: 15_000_000 };
const GPT: Pricing = { input: 2_000_000, output: 4_000_000, cacheRead: 500_000 };
const CODEX: Pricing = { input: 1_000_000, output: 10_000_000, cacheRead: 100_000 };
const CLAUDE_USAGE = { input_tokens: 20, cache_read_input_tokens: 1000, cache_creation_input_tokens: 100, cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 0 }, output_tokens: 12 };
const down = (): ResponsesTurn => ({ httpStatus: 503, error: { message: 'overloaded', type: 'server_error', code: null, param: null } });

let claudeDown: FakeServer;
let gpt: FakeServer;
let claude: AgentServer;
let codexDown: ResponsesFake;
let codex: ResponsesFake;
let cohere: FakeServer;
let url: string;
let close: () => Promise<void>;
let store: MemoryStore;
let key: string;

beforeAll(async () => {
  claudeDown = await startFake((_req, res) => failWith(res, 503));
  gpt = await startOpenAIFake(); // usage: 30 prompt tokens of which 10 cached, 12 completion tokens
  claude = await startAgentServer((req, res) => (req.body?.model === 'claude-refuses-4-5'
    ? sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long for claude-refuses-4-5' } })
    : req.path.startsWith('/v1/messages/count_tokens') ? sendJson(res, 200, { input_tokens: 77 }) : sendJson(res, 200, {
    id: 'msg_1', type: 'message', role: 'assistant', model: req.body?.model, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: CLAUDE_USAGE,
  })));
  codexDown = await startResponsesFake(down);
  codex = await startResponsesFake(() => ({ output: [message('from codex')], usage: responsesUsage({ input: 900, cached: 600, cacheWrite: 0, output: 20, reasoning: 5 }) }));
  cohere = await startRerankFake('cohere');
  const http = { apiKey: UPSTREAM_KEY };
  const anthropic = (baseURL: string, name: string) => anthropicAdapter({ ...http, baseURL, name });
  const openai = (baseURL: string, name: string) => openaiChatAdapter({ ...http, baseURL, name });
  const options = { backoffMs: 1, failureThreshold: 100 };
  const models: ModelEntry[] = [
    { id: 'flagship', capability: 'llm', upstream: failover([
      { upstream: anthropic(claudeDown.url, 'claude-down'), upstreamModel: 'claude-sonnet-4-5', pricing: CLAUDE },
      { upstream: openai(gpt.url, 'gpt'), upstreamModel: 'gpt-5.1', pricing: GPT },
    ], options) },
    { id: 'flagship-reverse', capability: 'llm', upstream: failover([
      { upstream: openai(claudeDown.url, 'gpt-down'), upstreamModel: 'gpt-5.1', pricing: GPT },
      { upstream: anthropic(claude.url, 'claude'), upstreamModel: 'claude-sonnet-4-5', pricing: CLAUDE },
    ], options) },
    // Plain adapters of two formats, one price: each member's cache prices default by its own format.
    { id: 'mixed', capability: 'llm', upstream: failover([anthropic(claudeDown.url, 'claude-down'), openai(gpt.url, 'gpt')], options), upstreamModel: 'gpt-5.1', pricing: { input: 1_000_000, output: 2_000_000 } },
    { id: 'counter', capability: 'llm', agentReady: true, pricing: CLAUDE, upstream: failover([
      { upstream: anthropic(claudeDown.url, 'claude-down'), upstreamModel: 'claude-opus-4-1' },
      { upstream: anthropic(claude.url, 'claude'), upstreamModel: 'claude-haiku-4-5' },
    ], options) },
    { id: 'codex', capability: 'llm', agentReady: true, pricing: GPT, upstream: failover([
      { upstream: openaiResponsesAdapter({ ...http, baseURL: codexDown.url, name: 'codex-down' }), upstreamModel: 'gpt-5.1-codex-mini' },
      { upstream: openaiResponsesAdapter({ ...http, baseURL: codex.url, name: 'codex' }), upstreamModel: 'gpt-5.1-codex', pricing: CODEX },
    ], options) },
    { id: 'ranker', capability: 'rerank', pricing: { input: 1_000_000 }, upstream: failover([
      { upstream: cohereAdapter({ ...http, baseURL: cohere.url, name: 'cohere-a' }), upstreamModel: 'rerank-a-status-503' },
      { upstream: cohereAdapter({ ...http, baseURL: cohere.url, name: 'cohere-b' }), upstreamModel: 'rerank-v3.5-tokens', pricing: { input: 2_000_000 } },
    ], options) },
    { id: 'single', capability: 'llm', upstream: openai(gpt.url, 'gpt'), upstreamModel: 'gpt-5.1', pricing: GPT },
    // An upstream's own words about the request name the member's model: the caller reads the name it asked for.
    { id: 'wordy', capability: 'llm', agentReady: true, pricing: CLAUDE, upstream: failover([{ upstream: anthropic(claude.url, 'claude'), upstreamModel: 'claude-refuses-4-5' }], options) },
  ];
  store = new MemoryStore();
  const gateway = createGatewayRouter({ store, models });
  const app = express();
  app.use('/admin', createAdminRouter({ store, models: gateway.models, tokens: [{ name: 'ops', token: ADMIN, access: 'write' }] }));
  app.use(gateway);
  const server = await listen(app);
  url = server.url;
  close = async () => { await server.close(); await gateway.close(); };
  ({ key } = addCaller(store));
});
afterAll(async () => {
  await close();
  await Promise.all([claudeDown.close(), gpt.close(), claude.close(), codexDown.close(), codex.close(), cohere.close()]);
});

const lastModel = (fake: FakeServer): unknown => fake.received.at(-1)?.body.model;
const requestIdOf = (res: { headers: Headers }): string => res.headers.get('request-id') as string;
async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${url}/admin${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const parsed = (await res.json()) as unknown;
  checkAgainstDocument(method, path, res.status, parsed);
  return { status: res.status, body: parsed };
}

describe('the Anthropic member fails, the OpenAI member serves', () => {
  const attempts = [
    { upstream: 'claude-down', ok: false, code: 'overloaded_error', format: 'anthropic', model: 'claude-sonnet-4-5', pricing: CLAUDE },
    { upstream: 'gpt', ok: true, format: 'openai', model: 'gpt-5.1', pricing: GPT },
  ];
  // 20 input × 2 + 10 cache reads × 0.5 + 12 output × 4, at the OpenAI member's own prices.
  const expectServedByGpt = async (requestId: string): Promise<void> => {
    expect(lastModel(claudeDown)).toBe('claude-sonnet-4-5');
    expect(lastModel(gpt)).toBe('gpt-5.1');
    const entry = await logEntry(store, requestId);
    expect(entry).toMatchObject({ model: 'flagship', upstream: 'gpt', status: 200, usage: { inputTokens: 20, cacheReadInputTokens: 10, outputTokens: 12 }, cost: '93', charge: 93, billingStatus: 'billed' });
    expect(entry.attempts).toEqual(attempts.map((a) => expect.objectContaining(a)));
  };

  it('on Messages, JSON and stream: each member is sent its own model, the bill is at the serving member\'s prices', async () => {
    for (const stream of [false, true]) {
      const res = await postMessages(url, key, 'flagship', { stream });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(text).toContain('"model":"flagship"');
      await expectServedByGpt(requestIdOf(res));
    }
  });

  it('on chat completions and on Responses (translated), through the openai SDK', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
    const chat = await client.chat.completions.create({ model: 'flagship', messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    expect(chat.data.model).toBe('flagship');
    await expectServedByGpt(requestIdOf(chat.response));
    const answer = await client.responses.create({ model: 'flagship', input: 'Hi' }).withResponse();
    expect(answer.data.model).toBe('flagship');
    await expectServedByGpt(requestIdOf(answer.response));
  });

  it('the reverse (the OpenAI member fails): the Anthropic member gets its model and bills at its prices, cache at its format\'s defaults', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 });
    const { data, response } = await client.messages.create({ model: 'flagship-reverse', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    expect(data.model).toBe('flagship-reverse');
    expect(lastModel(claudeDown)).toBe('gpt-5.1');
    expect(claude.requests.at(-1)?.body?.model).toBe('claude-sonnet-4-5');
    const entry = await logEntry(store, requestIdOf(response));
    // 20 × 3 + 1000 cache reads × 0.3 + 100 five-minute writes × 3.75 + 12 × 15.
    expect([entry.cost, entry.charge, entry.upstream]).toEqual(['915', 915, 'claude']);
    expect(entry.attempts.map((a) => [a.upstream, a.ok, a.model])).toEqual([['gpt-down', false, 'gpt-5.1'], ['claude', true, 'claude-sonnet-4-5']]);
  });
});

it('count_tokens goes to the serving member with its own model', async () => {
  const res = await fetch(`${url}/v1/messages/count_tokens`, {
    method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'counter', messages: [{ role: 'user', content: 'Hi' }] }),
  });
  expect([res.status, await res.json()]).toEqual([200, { input_tokens: 77 }]);
  expect(lastModel(claudeDown)).toBe('claude-opus-4-1');
  expect(claude.requests.at(-1)).toMatchObject({ path: '/v1/messages/count_tokens', body: { model: 'claude-haiku-4-5' } });
});

it('the Responses pass-through goes to the serving member with its own model, billed at its prices', async () => {
  const client = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
  const { data, response } = await client.responses.create({ model: 'codex', input: 'Hi' }).withResponse();
  expect(data.model).toBe('codex');
  expect(codexDown.responses().at(-1)?.body?.model).toBe('gpt-5.1-codex-mini');
  expect(codex.responses().at(-1)?.body?.model).toBe('gpt-5.1-codex');
  const entry = await logEntry(store, requestIdOf(response));
  // 300 fresh input × 1 + 600 cache reads × 0.1 + 20 output × 10, at the member's own prices (the model's would give 890).
  expect(entry).toMatchObject({ usage: { inputTokens: 300, cacheReadInputTokens: 600, outputTokens: 20 }, cost: '560', upstream: 'codex' });
});

it('rerank goes to the serving member with its own model, billed at its prices', async () => {
  const res = await fetch(`${url}/v1/rerank`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'ranker', query: 'q', documents: ['a', 'b'] }),
  });
  expect(res.status).toBe(200);
  expect(cohere.received.slice(-2).map((r) => r.body.model)).toEqual(['rerank-a-status-503', 'rerank-v3.5-tokens']);
  const entry = await logEntry(store, requestIdOf(res));
  expect([entry.usage?.inputTokens, entry.cost, entry.upstream]).toEqual([42, '84', 'cohere-b']); // 42 tokens × 2, the member's price
});

it("an upstream's words about the request name the member's model as the name the caller asked", async () => {
  const client = new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 });
  const error = await client.messages.create({ model: 'wordy', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((err: unknown) => err);
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ error: { type: 'invalid_request_error', message: 'prompt is too long for wordy' } });
});

describe('GET /admin/models', () => {
  const viewOf = async (id: string) => ((await admin('GET', '/models')).body.items as Array<Record<string, any>>).find((m) => m.id === id); // eslint-disable-line @typescript-eslint/no-explicit-any

  it('shows each member: the model it is sent, its own prices, and every price in effect, which is what a request it serves is charged', async () => {
    const flagship = await viewOf('flagship');
    expect(flagship).toMatchObject({ pricing: null, prices: null });
    expect(flagship?.members).toEqual([
      { upstream: 'claude-down', format: 'anthropic', upstreamModel: 'claude-sonnet-4-5', pricing: CLAUDE, prices: expect.objectContaining({ input: '3000000', cacheRead: '300000', cacheWrite5m: '3750000', output: '15000000' }) },
      { upstream: 'gpt', format: 'openai', upstreamModel: 'gpt-5.1', pricing: GPT, prices: expect.objectContaining({ input: '2000000', cacheRead: '500000', cacheWrite5m: '2000000', output: '4000000' }) },
    ]);
    // A request the OpenAI member served, priced at the member's prices as the admin API shows them: what it was charged.
    const res = await postMessages(url, key, 'flagship');
    await res.text();
    const entry = await logEntry(store, requestIdOf(res));
    const shown = flagship?.members[1].prices as Pricing;
    expect(costOf(entry.usage as NonNullable<typeof entry.usage>, shown, 'openai')).toBe(entry.cost);
    expect(costOf(entry.usage as NonNullable<typeof entry.usage>, shown, 'anthropic')).toBe(entry.cost); // every price is set: no default enters
  });

  it("shows a mixed group's cache prices per member, by its format, and no model-wide price (none is charged at 1 × input)", async () => {
    const mixed = await viewOf('mixed');
    expect(mixed).toMatchObject({ pricing: { input: 1_000_000, output: 2_000_000 }, prices: null });
    expect(mixed?.members.map((m: { upstream: string; upstreamModel: string; pricing: unknown; prices: Record<string, string> }) => [m.upstream, m.upstreamModel, m.pricing, m.prices.cacheRead, m.prices.cacheWrite5m]))
      .toEqual([['claude-down', 'gpt-5.1', null, '100000', '1250000'], ['gpt', 'gpt-5.1', null, '500000', '1000000']]);
    expect(await viewOf('single')).toMatchObject({ members: null, prices: { input: '2000000', cacheRead: '500000', output: '4000000' } });
  });

  it('takes its own view back, and refuses a model price no request would be charged', async () => {
    const items = (await admin('GET', '/models')).body.items as Array<Record<string, unknown>>;
    expect((await admin('PUT', '/models', { models: items })).status).toBe(200);
    const priced = items.map((m) => (m.id === 'flagship' ? { ...m, pricing: { input: 1 } } : m));
    expect(await admin('PUT', '/models', { models: priced })).toMatchObject({
      status: 400, body: { error: { message: expect.stringContaining('"pricing" of "flagship" is charged by no request: every member of its failover group carries its own') } },
    });
  });
});

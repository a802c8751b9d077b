/**
 * Chains across instances and turns: two gateways on one PostgreSQL continue each other's chains, the second reading a
 * response the instant the first sent its final event; a chained conversation on an Anthropic upstream with automatic
 * caching reads the history from the cache every turn and is billed on what the upstream confirmed; with storing off a
 * chain is refused naming the option, `store: true` is answered `store: false`, and cancel is refused.
 */
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { anthropicAdapter, MemoryStore, PostgresStore, type GatewayStore, type ModelEntry, type ResponseStore } from '../../lib';
import { costOf } from '../../lib/billing/pricing';
import { startCachingAnthropic, type CachingAnthropic } from '../helpers/fake-anthropic-cache';
import { startScripted, UNIT_PRICING, type ScriptedUpstream } from '../helpers/fake-scripted';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { pgPool, pgStore } from '../helpers/services';

type Json = Record<string, unknown>;
let scripted: ScriptedUpstream;
beforeAll(async () => {
  scripted = await startScripted('anthropic', () => ({ text: ['Hi', ' there'], usage: { input: 9, output: 3 } }));
});
afterAll(async () => {
  await scripted.close();
});
const claude = (): ModelEntry => ({ id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: scripted.url }), agentReady: true, autoCache: false, pricing: UNIT_PRICING });
const sdk = (key: string, gw: RunningGateway): OpenAI => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

describe('two instances on one PostgreSQL', () => {
  let made: Awaited<ReturnType<typeof pgStore>>;
  let second: PostgresStore;
  let pool: Awaited<ReturnType<typeof pgPool>>;
  let a: RunningGateway;
  let b: RunningGateway;
  let key: string;
  beforeAll(async () => {
    made = await pgStore();
    pool = await pgPool();
    second = new PostgresStore({ pool, schema: made.schema, keyCacheMs: 0, sweepIntervalMs: 0 });
    a = await startGateway({ store: made.store as GatewayStore, models: [claude()], responses: { store: true } });
    b = await startGateway({ store: second as GatewayStore, models: [claude()], responses: { store: true } });
    const id = `caller_${randomBytes(6).toString('hex')}`;
    key = `sk-test-${randomBytes(16).toString('hex')}`;
    await made.store.addKey(key, { id });
    await made.store.credit({ callerId: id, amount: 100_000_000, idempotencyKey: `opening-${id}` });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await second.close();
    await pool.end();
    await made.drop();
  });

  it('the second reads at once what the first stored, and each continues the chain the other began', async () => {
    const stream = sdk(key, a).responses.stream({ model: 'claude', input: 'Hello' });
    const [completed, read] = await new Promise<[OpenAI.Responses.Response, Promise<OpenAI.Responses.Response>]>((resolve) => {
      stream.on('response.completed', (event) => resolve([event.response, sdk(key, b).responses.retrieve(event.response.id)]));
    });
    await stream.done();
    expect(await read).toMatchObject({ id: completed.id, store: true, output: completed.output });
    const onB = await sdk(key, b).responses.create({ model: 'claude', previous_response_id: completed.id, input: 'Again?' });
    const onA = await sdk(key, a).responses.create({ model: 'claude', previous_response_id: onB.id, input: 'Once more?' });
    expect(onA).toMatchObject({ previous_response_id: onB.id, store: true });
    const sent = scripted.calls().at(-1)?.body?.messages as Json[];
    expect(sent.map((m) => [m.role, (m.content as Json[])[0]?.text])).toEqual([
      ['user', 'Hello'], ['assistant', 'Hi there'], ['user', 'Again?'], ['assistant', 'Hi there'], ['user', 'Once more?'],
    ]);
  });
});

it('a slow store holds back the final event until the response is written (JSON: the body), never the other way round', async () => {
  const store = new MemoryStore();
  const responses = store.responses;
  const put = responses.putResponse.bind(responses);
  let written = 0;
  (responses as ResponseStore).putResponse = async (record, limits) => {
    await new Promise((r) => setTimeout(r, 150));
    const result = put(record, limits);
    written = Date.now();
    return result;
  };
  const gw = await startGateway({ store, models: [claude()], responses: { store: true } });
  try {
    const { key } = addCaller(store);
    const stream = sdk(key, gw).responses.stream({ model: 'claude', input: 'Hello' });
    const completedAt = await new Promise<number>((resolve) => stream.on('response.completed', () => resolve(Date.now())));
    await stream.done();
    expect(written).toBeGreaterThan(0);
    expect(completedAt).toBeGreaterThanOrEqual(written);
    const sent = Date.now();
    const json = await sdk(key, gw).responses.create({ model: 'claude', input: 'Hello' });
    expect(json).toMatchObject({ store: true });
    expect(written).toBeGreaterThanOrEqual(sent); // this request's own write, done before its body came
    expect(written).toBeLessThanOrEqual(Date.now());
  } finally {
    await gw.close();
  }
});

describe('a chained conversation on an Anthropic upstream with automatic caching', () => {
  const SYSTEM = `You are a coding agent. ${'Keep changes small and run the tests. '.repeat(300)}`;
  const tool = (name: string) => ({ type: 'function' as const, name, description: `${name} a file. `.repeat(40), strict: false, parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path'] } });
  const PRICING = { input: 3_000_000, output: 15_000_000 };
  let upstream: CachingAnthropic;
  let gw: RunningGateway;
  beforeAll(async () => {
    upstream = await startCachingAnthropic();
    gw = await startGateway({ models: [{ id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: upstream.url }), agentReady: true, pricing: PRICING }], responses: { store: true } });
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  it('reads the whole history from the cache every turn, billed on the usage the upstream confirmed, each line saying what it chained from', async () => {
    const { key, id: callerId } = addCaller(gw.store, { balance: 1_000_000_000 });
    const client = sdk(key, gw);
    const params = { model: 'claude', instructions: SYSTEM, tools: [tool('read_file'), tool('write_file')] };
    let response = await client.responses.stream({ ...params, input: 'Fix the bug in app.js' }).finalResponse();
    const ids = [response.id];
    while (response.output.some((i) => i.type === 'function_call')) {
      const call = response.output.find((i) => i.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall | undefined;
      response = await client.responses.stream({ ...params, previous_response_id: response.id, input: [{ type: 'function_call_output', call_id: String(call?.call_id), output: 'broken();\n'.repeat(50) }] }).finalResponse();
      ids.push(response.id);
    }
    expect(response.output_text).toBe('Fixed app.js.');
    const usages = upstream.usages.slice(-3);
    expect(usages).toHaveLength(3);
    expect(usages[0]?.cache_creation_input_tokens).toBeGreaterThan(2000);
    for (const [turn, before] of [[usages[1], usages[0]], [usages[2], usages[1]]] as const) {
      expect(turn?.cache_read_input_tokens).toBe((before?.cache_read_input_tokens ?? 0) + (before?.cache_creation_input_tokens ?? 0));
    }
    for (let waited = 0; gw.store.getLog().filter((e) => e.callerId === callerId).length < 3 && waited < 3000; waited += 5) await new Promise((r) => setTimeout(r, 5));
    const entries = gw.store.getLog().filter((e) => e.callerId === callerId);
    entries.forEach((entry, i) => {
      const u = usages[i];
      expect(entry.usage).toMatchObject({ inputTokens: u?.input_tokens, cacheReadInputTokens: u?.cache_read_input_tokens, cacheWrite5mInputTokens: u?.cache_creation_input_tokens });
      expect(entry.cost).toBe(costOf(entry.usage as NonNullable<typeof entry.usage>, PRICING, 'anthropic'));
      if (i > 0) expect(entry.detail).toContain(`chained from ${ids[i - 1]}`);
      else expect(entry.detail ?? '').not.toContain('chained');
    });
  });
});

describe('storing off', () => {
  let gw: RunningGateway;
  let key: string;
  beforeAll(async () => {
    gw = await startGateway({ store: new MemoryStore(), models: [claude()] });
    ({ key } = addCaller(gw.store));
  });
  afterAll(async () => {
    await gw.close();
  });
  const call = async (method: string, path: string, body?: Json): Promise<{ status: number; body: Json; requestId: string }> => {
    const res = await fetch(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: (await res.json()) as Json, requestId: String(res.headers.get('request-id')) };
  };

  it('a chain is a 400 naming the field and the option, before any upstream call; store: true is answered store: false and noted disabled', async () => {
    const calls = scripted.calls().length;
    const chained = await call('POST', '/v1/responses', { model: 'claude', input: 'Hi', previous_response_id: 'resp_abc' });
    expect(chained.status).toBe(400);
    expect(chained.body.error).toMatchObject({ type: 'invalid_request_error', param: 'previous_response_id', code: 'invalid_value', message: expect.stringContaining('responses.store') });
    expect(scripted.calls().length).toBe(calls);
    const answered = await sdk(key, gw).responses.create({ model: 'claude', input: 'Hi', store: true });
    expect(answered).toMatchObject({ store: false, status: 'completed' });
    const requestId = `req_${answered.id.slice(5)}`;
    await logEntry(gw.store, requestId);
    expect(gw.store.responses.responseOfRequest(requestId)).toBeUndefined(); // storing off: not a single write for it
    const read = await call('GET', `/v1/responses/${answered.id}`);
    expect(read.status).toBe(404);
    expect(String((read.body.error as Json).message)).toContain('responses.store');
  });

  it('cancel is a 400 (there are no background responses); other methods are 405 naming the allowed ones', async () => {
    const cancel = await call('POST', '/v1/responses/resp_abc/cancel');
    expect(cancel.status).toBe(400);
    expect(cancel.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('background') });
    const put = await fetch(`${gw.url}/v1/responses/resp_abc`, { method: 'PUT', headers: { authorization: `Bearer ${key}` } });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, DELETE']);
    const items = await call('GET', '/v1/responses/resp_abc/input_items');
    const removed = await call('DELETE', '/v1/responses/resp_abc');
    for (const [answer, endpoint] of [[cancel, 'responses_cancel'], [items, 'responses_input_items'], [removed, 'responses_delete']] as const) {
      expect(await logEntry(gw.store, answer.requestId)).toMatchObject({ endpoint, status: answer.status, billingStatus: 'not_billed', charge: 0 });
    }
  });
});

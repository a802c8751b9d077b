/**
 * Stateful Responses on translated upstreams, on MemoryStore and PostgresStore: the openai SDK chains with
 * `previous_response_id` (JSON and stream) to an Anthropic-format and an OpenAI-chat-format upstream, which get the
 * stored history (signatures round-tripped, the old instructions gone, the id never sent); a response is readable the
 * instant its final event arrives; GET, DELETE and input_items; another account's id is the 404 of an id never issued,
 * on every route; `store` says true only when stored; retention makes a response unreadable; the log says chained from.
 */
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { anthropicAdapter, openaiChatAdapter, PostgresStore, type GatewayStore, type ModelEntry, type RequestLogEntry } from '../../lib';
import { BOTH_STORES, pgPool, type MadeStore } from '../helpers/services';
import { startScripted, UNIT_PRICING, type ScriptedTurn, type ScriptedUpstream } from '../helpers/fake-scripted';
import { startGateway, type RunningGateway } from '../helpers/gateway';
import { grammarCheckedFetch } from '../helpers/responses-grammar';

type Json = Record<string, unknown>;
type Store = MadeStore['store'];
const SIGNATURE = Buffer.from(Array.from({ length: 120 }, (_, i) => (i * 29 + 7) % 256)).toString('base64');
const CALL: ScriptedTurn = { thinking: { text: ['Weather needs', ' a tool.'], signature: SIGNATURE }, calls: [{ id: 'toolu_01Weather', name: 'get_weather', input: { city: 'Paris' } }], usage: { input: 7, output: 40, cacheRead: 100 } };
const ANSWER: ScriptedTurn = { text: ['Paris is', ' 21 °C.'], usage: { input: 5, output: 12, cacheRead: 300 } };
const HELLO: ScriptedTurn = { text: ['Hi', ' there'], usage: { input: 9, output: 3 } };
const answersTool = (body: Json): boolean => {
  const last = (body.messages as Json[]).at(-1);
  return last?.role === 'tool' || (Array.isArray(last?.content) && (last.content as Json[]).some((b) => b.type === 'tool_result'));
};
const weather = (body: Json): ScriptedTurn => (answersTool(body) ? ANSWER : (body.tools as unknown[] | undefined)?.length ? CALL : HELLO);
const getWeather = { type: 'function' as const, name: 'get_weather', description: 'The weather in a city', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const NEVER = `resp_${'0'.repeat(32)}`;

let claude: ScriptedUpstream;
let gpt: ScriptedUpstream;
beforeAll(async () => {
  [claude, gpt] = await Promise.all([startScripted('anthropic', weather), startScripted('openai', weather)]);
});
afterAll(async () => {
  await Promise.all([claude.close(), gpt.close()]);
});
const models = (): ModelEntry[] => [
  { id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: claude.url }), agentReady: true, autoCache: false, pricing: UNIT_PRICING },
  { id: 'gpt', capability: 'llm', upstream: openaiChatAdapter({ baseURL: gpt.url }), agentReady: true, pricing: UNIT_PRICING },
];

/** A new account with a balance, on either store. */
async function newCaller(store: Store): Promise<{ key: string; id: string }> {
  const id = `caller_${randomBytes(6).toString('hex')}`;
  const key = `sk-test-${randomBytes(16).toString('hex')}`;
  await store.addKey(key, { id });
  await store.credit({ callerId: id, amount: 100_000_000, idempotencyKey: `opening-${id}` });
  return { key, id };
}

/** The log line of a request (written after its response). */
async function logLine(store: Store, requestId: string): Promise<RequestLogEntry> {
  for (let waited = 0; waited < 5000; waited += 10) {
    const entry = (await store.listRequests({ requestId, limit: 1 })).items[0];
    if (entry) return entry;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no log line for ${requestId}`);
}

/** The note of a request's response (written as the request concludes, after its answer). */
async function noteOf(store: Store, requestId: string): Promise<unknown> {
  for (let waited = 0; waited < 5000; waited += 10) {
    const note = await store.responses.responseOfRequest(requestId);
    if (note) return note;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no response note for ${requestId}`);
}

/** Every stream the SDK reads is kept and checked against the Responses grammar after each test. */
const recording = grammarCheckedFetch();

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let made: MadeStore;
  let gw: RunningGateway;
  let small: RunningGateway;
  let owner: { key: string; id: string };
  let other: { key: string; id: string };
  beforeAll(async () => {
    made = await make();
    gw = await startGateway({ store: made.store as GatewayStore, models: models(), responses: { store: true } });
    small = await startGateway({ store: made.store as GatewayStore, models: models(), responses: { store: true, maxBytes: 1024 } });
    [owner, other] = [await newCaller(made.store), await newCaller(made.store)];
  });
  afterAll(async () => {
    await gw.close();
    await small.close();
    await made.drop();
  });
  const client = (key = owner.key, at = gw): OpenAI => new OpenAI({ apiKey: key, baseURL: `${at.url}/v1`, maxRetries: 0, fetch: recording });
  const raw = async (method: string, path: string, key: string, body?: Json): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: (await res.json()) as Json };
  };

  describe.each([['claude', 'anthropic'], ['gpt', 'openai']] as const)('%s (%s-format upstream)', (model, format) => {
    const upstream = (): ScriptedUpstream => (model === 'claude' ? claude : gpt);

    it('responses.create chains: the upstream gets the stored history (the signature whole) with the new instructions only, never the id; billed on it, logged as chained', async () => {
      const first = await client().responses.create({ model, instructions: 'Answer briefly.', input: 'Weather in Paris?', tools: [getWeather], reasoning: { effort: 'low', summary: 'auto' } });
      expect(first).toMatchObject({ store: true, previous_response_id: null, status: 'completed' });
      expect(first.output.find((i) => i.type === 'reasoning')).not.toHaveProperty('encrypted_content'); // not asked for: kept, not shown
      const call = first.output.find((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === 'function_call');
      const { data: second, response } = await client().responses.create({
        model, previous_response_id: first.id, instructions: 'Be terse.', tools: [getWeather], input: [{ type: 'function_call_output', call_id: String(call?.call_id), output: '21 °C, sunny' }],
      }).withResponse();
      expect(second).toMatchObject({ status: 'completed', output_text: 'Paris is 21 °C.', store: true, previous_response_id: first.id, instructions: 'Be terse.' });
      const [sentFirst, sentSecond] = upstream().calls().slice(-2);
      const messages = sentSecond?.body?.messages as Json[];
      if (format === 'anthropic') {
        expect(sentSecond?.body?.system).toBe('Be terse.');
        expect(messages).toEqual([
          (sentFirst?.body?.messages as Json[])[0], // the history as the first turn sent it
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'Weather needs a tool.', signature: SIGNATURE }, { type: 'tool_use', id: 'toolu_01Weather', name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01Weather', content: '21 °C, sunny' }] },
        ]);
      } else {
        expect(messages).toEqual([
          { role: 'system', content: 'Be terse.' }, (sentFirst?.body?.messages as Json[])[1],
          { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_01Weather', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }], reasoning_content: 'Weather needs a tool.' },
          { role: 'tool', tool_call_id: 'toolu_01Weather', content: '21 °C, sunny' },
        ]);
      }
      expect(sentSecond?.text).not.toContain('Answer briefly.');
      expect(sentSecond?.text).not.toContain(first.id.slice(5));
      expect(sentSecond?.text).not.toContain('previous_response_id');
      const entry = await logLine(made.store, String(response.headers.get('request-id')));
      const u = ANSWER.usage;
      expect(entry).toMatchObject({ endpoint: 'responses', billingStatus: 'billed', cost: String(u.input + u.output * 2 + (u.cacheRead ?? 0) * 0.1), usage: { inputTokens: u.input, cacheReadInputTokens: u.cacheRead, outputTokens: u.output, provenance: 'confirmed' } });
      expect(entry.detail).toContain(`chained from ${first.id}`);
      expect(await made.store.responses.responseOfRequest(entry.requestId)).toMatchObject({ responseId: second.id, stored: true, reason: null, previousResponseId: first.id }); // what GET /admin/requests/:id shows
    });

    it('responses.stream chains; a response is readable the instant its final event arrives (no retry, no poll), and equals what the client got', async () => {
      const stream = client().responses.stream({ model, input: [{ role: 'user', content: 'Hello' }] });
      const [completed, read] = await new Promise<[Json, Promise<unknown>]>((resolve) => {
        stream.on('response.completed', (event) => resolve([event.response as unknown as Json, client().responses.retrieve(event.response.id)]));
      });
      await stream.done();
      expect(completed).toMatchObject({ store: true, status: 'completed' });
      expect(await read).toEqual({ ...completed, output_text: 'Hi there' });
      const next = await client().responses.stream({ model, previous_response_id: String(completed.id), input: 'And again?' }).finalResponse();
      expect(next).toMatchObject({ output_text: 'Hi there', previous_response_id: completed.id, store: true });
      const sent = upstream().calls().at(-1)?.body?.messages as Json[];
      expect(JSON.stringify(sent)).toBe(JSON.stringify(format === 'anthropic'
        ? [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }, { role: 'assistant', content: [{ type: 'text', text: 'Hi there' }] }, { role: 'user', content: [{ type: 'text', text: 'And again?' }] }]
        : [{ role: 'user', content: 'Hello' }, { role: 'assistant', content: 'Hi there' }, { role: 'user', content: 'And again?' }]));
    });

    it('GET, input_items (pages, include) and DELETE; a deleted response chains no more', async () => {
      const first = await client().responses.create({ model, instructions: 'Answer briefly.', input: 'Weather in Paris?', tools: [getWeather], reasoning: { effort: 'low' } });
      const call = first.output.find((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === 'function_call');
      const second = await client().responses.create({ model, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: String(call?.call_id), output: 'sunny' }] });
      expect(await client().responses.retrieve(second.id)).toEqual(second);
      const reasoning = (await client().responses.retrieve(first.id, { include: ['reasoning.encrypted_content'] })).output.find((i) => i.type === 'reasoning');
      expect(reasoning).toMatchObject({ encrypted_content: expect.stringMatching(/^mgw\.v2\./) });
      const items: Json[] = [];
      for await (const item of client().responses.inputItems.list(second.id, { order: 'asc', limit: 2 })) items.push(item as unknown as Json);
      expect(items.map((i) => i.type)).toEqual(['message', 'reasoning', 'function_call', 'function_call_output']);
      expect(items[0]).toEqual({ id: expect.stringMatching(/^msg_/), type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] });
      expect(items[1]).not.toHaveProperty('encrypted_content');
      expect(new Set(items.map((i) => i.id)).size).toBe(4);
      const desc = await raw('GET', `/v1/responses/${second.id}/input_items?include[]=reasoning.encrypted_content`, owner.key);
      expect((desc.body.data as Json[]).map((i) => i.id)).toEqual(items.map((i) => i.id).reverse());
      expect((desc.body.data as Json[])[2]).toMatchObject({ type: 'reasoning', encrypted_content: expect.stringMatching(/^mgw\.v2\./) });
      for (const [query, param] of [['limit=0', 'limit'], ['limit=ten', 'limit'], ['order=up', 'order'], ['after=msg_nowhere', 'after']]) {
        const bad = await raw('GET', `/v1/responses/${second.id}/input_items?${query}`, owner.key);
        expect([bad.status, (bad.body.error as Json).param, (bad.body.error as Json).type]).toEqual([400, param, 'invalid_request_error']);
      }
      expect(await raw('DELETE', `/v1/responses/${first.id}`, owner.key)).toEqual({ status: 200, body: { id: first.id, object: 'response', deleted: true } });
      await client().responses.delete(second.id); // typed void by the SDK, which takes OpenAI's body as it is
      expect((await raw('GET', `/v1/responses/${second.id}`, owner.key)).status).toBe(404);
      expect((await raw('DELETE', `/v1/responses/${second.id}`, owner.key)).status).toBe(404);
      await expect(client().responses.create({ model, previous_response_id: first.id, input: 'Hi' })).rejects.toMatchObject({ status: 404, code: 'previous_response_not_found', param: 'previous_response_id' });
    });
  });

  it('tenancy: another account\'s id is, on every route, exactly the 404 of an id never issued; nothing of it changes', async () => {
    const mine = await client().responses.create({ model: 'claude', input: 'Hello' });
    const routes: Array<[string, (id: string) => string, Json | undefined]> = [
      ['POST', () => '/v1/responses', undefined], ['GET', (id) => `/v1/responses/${id}`, undefined],
      ['DELETE', (id) => `/v1/responses/${id}`, undefined], ['GET', (id) => `/v1/responses/${id}/input_items`, undefined],
    ];
    for (const [method, path] of routes) {
      const ask = (id: string) => raw(method, path(id), other.key, method === 'POST' ? { model: 'claude', input: 'Hi', previous_response_id: id } : undefined);
      const [theirs, never, malformed] = await Promise.all([ask(mine.id), ask(NEVER), ask('resp_../../x')]);
      expect(theirs.status).toBe(404);
      expect(theirs).toEqual(never);
      if (method !== 'POST') expect(malformed).toEqual(never);
    }
    expect((await raw('POST', '/v1/responses', other.key, { model: 'claude', input: 'Hi', previous_response_id: mine.id })).body).toEqual({
      error: { message: expect.any(String), type: 'invalid_request_error', code: 'previous_response_not_found', param: 'previous_response_id' },
    });
    expect(await client().responses.retrieve(mine.id)).toEqual(mine); // their DELETE deleted nothing
  });

  it('store: false is answered store: false, not stored, and noted; a response over maxBytes likewise (too_large)', async () => {
    const unasked = await client().responses.create({ model: 'claude', input: 'Hello', store: false });
    expect(unasked).toMatchObject({ store: false });
    expect((await raw('GET', `/v1/responses/${unasked.id}`, owner.key)).status).toBe(404);
    const big = await client(owner.key, small).responses.create({ model: 'claude', input: 'x'.repeat(2000) });
    expect(big).toMatchObject({ store: false });
    expect((await raw('GET', `/v1/responses/${big.id}`, owner.key)).status).toBe(404);
    const id = (resp: { id: string }) => `req_${resp.id.slice(5)}`;
    expect(await made.store.responses.responseOfRequest(id(big))).toMatchObject({ responseId: big.id, stored: false, reason: 'too_large' });
    expect((await logLine(made.store, id(big))).detail).toContain('response not stored (too_large)');
    expect(await noteOf(made.store, id(unasked))).toMatchObject({ responseId: unasked.id, stored: false, reason: 'not_requested' });
  });

  it('input_tokens chains too: the count covers the history', async () => {
    const first = await client().responses.create({ model: 'claude', input: 'Hello' });
    expect(await client().responses.inputTokens.count({ model: 'claude', previous_response_id: first.id, input: 'And again?' })).toEqual({ object: 'response.input_tokens', input_tokens: 4242 });
    const counted = claude.requests.filter((r) => r.path.endsWith('/count_tokens')).at(-1)?.body?.messages as Json[];
    expect(counted.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('retention: a response past its expiresAt is unreadable and chains no more', async () => {
    const kept = await client().responses.create({ model: 'claude', input: 'Hello' });
    const record = await made.store.responses.getResponse(owner.id, kept.id);
    expect((record?.expiresAt ?? 0) - (record?.createdAt ?? 0)).toBe(30 * 86_400_000);
    let restore: () => Promise<void>;
    if (made.store instanceof PostgresStore) {
      const pool = await pgPool(1);
      await pool.query(`UPDATE ${made.store.schema}.responses SET expires_at = now() - interval '1 millisecond' WHERE id = $1`, [kept.id]);
      restore = () => pool.end();
    } else {
      const now = Date.now();
      const clock = jest.spyOn(Date, 'now').mockImplementation(() => now + 30 * 86_400_000 + 1);
      restore = async () => clock.mockRestore();
    }
    try {
      expect((await raw('GET', `/v1/responses/${kept.id}`, owner.key)).status).toBe(404);
      expect((await raw('POST', '/v1/responses', owner.key, { model: 'claude', input: 'Hi', previous_response_id: kept.id })).body).toMatchObject({ error: { code: 'previous_response_not_found' } });
    } finally {
      await restore();
    }
  });
});

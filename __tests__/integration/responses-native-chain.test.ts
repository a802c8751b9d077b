/**
 * Chains on native Responses upstreams, across failover and tenants: a response an upstream stored is chained there by its
 * own id (mapped in the gateway's store to upstream, account and upstream id); on failover to another upstream, or when
 * the upstream no longer has it, the stored history is resent instead, and no upstream id or reasoning blob of one
 * upstream reaches another. Callers present only gateway ids: another account's, or an upstream's, is a 404. Billed on
 * the usage the upstream confirmed; the log line says the request chained, from which response, and how it went up.
 */
import OpenAI from 'openai';
import { costOf } from '../../lib/billing/pricing';
import { failover, MemoryStore, openaiResponsesAdapter, type ModelEntry } from '../../lib';
import { message, reasoning, responsesUsage, startResponsesFake, type ResponsesFake, type ResponsesTurn } from '../helpers/fake-responses';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';

type Json = Record<string, unknown>;
const PRICING = { input: 3_000, output: 15_000, cacheRead: 300 };
const USAGE = responsesUsage({ input: 900, cached: 600, cacheWrite: 0, output: 20, reasoning: 5 });
const turn = (text: string) => (): ResponsesTurn => ({ output: [{ ...reasoning(['hmm'], `gAAAAB-blob-of-${text}`), status: 'completed' }, message(text)], usage: USAGE });
const down = (): ResponsesTurn => ({ httpStatus: 503, error: { message: 'overloaded', type: 'server_error', code: null, param: null } });

let a: ResponsesFake;
let b: ResponsesFake;
let gw: RunningGateway;
let owner: { key: string; id: string };
let other: { key: string; id: string };
let models: ModelEntry[];
beforeAll(async () => {
  a = await startResponsesFake(turn('from A'), { idPrefix: 'resp_a_' });
  b = await startResponsesFake(turn('from B'), { idPrefix: 'resp_b_' });
  const upstream = failover([openaiResponsesAdapter({ baseURL: a.url, apiKey: 'key-a', name: 'a' }), openaiResponsesAdapter({ baseURL: b.url, apiKey: 'key-b', name: 'b' })], { attempts: 2, backoffMs: 1, failureThreshold: 100 });
  models = [{ id: 'gpt', capability: 'llm', upstream, agentReady: true, pricing: PRICING }];
  gw = await startGateway({ store: new MemoryStore(), models, responses: { store: true } });
  owner = addCaller(gw.store);
  other = addCaller(gw.store);
});
afterAll(async () => {
  await gw.close();
  await a.close();
  await b.close();
});
beforeEach(() => {
  a.script = turn('from A');
  b.script = turn('from B');
});

const client = (key: string): OpenAI => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const requestIdOf = (id: string): string => `req_${id.slice(5)}`;

it('chains on the upstream that stored the response by that upstream\'s own id, billed on the usage it confirmed', async () => {
  const first = await client(owner.key).responses.create({ model: 'gpt', input: 'One', include: ['reasoning.encrypted_content'] });
  expect(a.answers.at(-1)?.response?.store).toBe(true);
  const upstreamId = a.answers.at(-1)?.response?.id as string;
  expect(first.id).not.toBe(upstreamId);
  expect(JSON.stringify(first)).not.toContain(upstreamId);
  const stream = client(owner.key).responses.stream({ model: 'gpt', input: 'Two', previous_response_id: first.id });
  const second = await stream.finalResponse();
  expect(a.answers.at(-1)?.request.body).toEqual({ model: 'gpt', input: 'Two', previous_response_id: upstreamId, stream: true });
  expect(second).toMatchObject({ previous_response_id: first.id, store: true, usage: USAGE });
  const entry = await logEntry(gw.store, requestIdOf(second.id));
  expect(entry.detail).toContain(`chained from ${first.id}`);
  expect(entry.detail).toContain("chain sent as a's previous_response_id");
  expect(entry.usage).toMatchObject({ inputTokens: 300, cacheReadInputTokens: 600, outputTokens: 20 });
  expect(entry.cost).toBe(costOf(entry.usage as NonNullable<typeof entry.usage>, PRICING, 'openai'));
  const stored = await gw.store.responses.getResponse(owner.id, second.id);
  expect(stored).toMatchObject({ upstream: 'a', previousResponseId: first.id });
  expect(stored?.upstreamResponseId).toMatch(/:resp_a_\d+$/);
});

it('on failover to another upstream the stored history is resent: nothing the first upstream issued reaches the second', async () => {
  const first = await client(owner.key).responses.create({ model: 'gpt', input: 'One', include: ['reasoning.encrypted_content'] });
  a.script = down;
  const before = b.answers.length;
  const second = await client(owner.key).responses.create({ model: 'gpt', input: 'Two', previous_response_id: first.id });
  expect(b.answers.length).toBe(before + 1);
  const sent = b.answers.at(-1)?.request;
  expect(sent?.body?.previous_response_id).toBeUndefined();
  expect(sent?.text).not.toMatch(/resp_a_|gAAAAB-blob-of-from A|"reasoning"/);
  expect((sent?.body?.input as Json[]).map((i) => i.role)).toEqual(['user', 'assistant', 'user']);
  expect(second).toMatchObject({ previous_response_id: first.id, output: [expect.anything(), expect.objectContaining({ type: 'message' })] });
  const entry = await logEntry(gw.store, requestIdOf(second.id));
  expect(entry.detail).toContain('chain sent history resent (another upstream stored it)');
  expect(entry.detail).toContain('dropped 1 reasoning item(s) of the resent history');
  // The next link, stored on b, chains on b by b's id.
  b.script = turn('from B');
  a.script = down;
  await client(owner.key).responses.create({ model: 'gpt', input: 'Three', previous_response_id: second.id });
  expect(b.answers.at(-1)?.request.body?.previous_response_id).toMatch(/^resp_b_/);
});

it('when the upstream no longer has its id (previous_response_not_found), the history is resent to it, once', async () => {
  const first = await client(owner.key).responses.create({ model: 'gpt', input: 'One' });
  a.stored.clear();
  const before = a.answers.length;
  const second = await client(owner.key).responses.create({ model: 'gpt', input: 'Two', previous_response_id: first.id });
  expect(a.answers.length).toBe(before + 1); // the refused one is not an answer the script gave
  expect(a.requests.filter((r) => r.body?.previous_response_id !== undefined).at(-1)?.body?.input).toBe('Two');
  expect(a.answers.at(-1)?.request.body?.previous_response_id).toBeUndefined();
  const entry = await logEntry(gw.store, requestIdOf(second.id));
  expect(entry.detail).toContain('history resent (a no longer had it)');
});

it('only gateway ids are taken, each only from its account: another account\'s or an upstream\'s id is 404 previous_response_not_found', async () => {
  const first = await client(owner.key).responses.create({ model: 'gpt', input: 'One' });
  const upstreamId = a.answers.at(-1)?.response?.id as string;
  const calls = a.requests.length + b.requests.length;
  for (const [key, id] of [[other.key, first.id], [owner.key, upstreamId], [other.key, upstreamId]] as const) {
    await expect(client(key).responses.create({ model: 'gpt', input: 'Two', previous_response_id: id })).rejects.toMatchObject({ status: 404, code: 'previous_response_not_found' });
  }
  expect(a.requests.length + b.requests.length).toBe(calls);
});

it('with the gateway\'s store off, a chain is refused naming the option, and the answer says store: false', async () => {
  const off = await startGateway({ models, responses: { store: false } });
  try {
    const { key } = addCaller(off.store);
    const sdk = new OpenAI({ apiKey: key, baseURL: `${off.url}/v1`, maxRetries: 0 });
    const answer = await sdk.responses.create({ model: 'gpt', input: 'One' });
    expect((answer as unknown as Json).store).toBe(false);
    await expect(sdk.responses.create({ model: 'gpt', input: 'Two', previous_response_id: answer.id }))
      .rejects.toMatchObject({ status: 400, param: 'previous_response_id' });
  } finally {
    await off.close();
  }
});

it('two adapters on one URL with different keys are two upstreams: a chain stored through one goes to the other as history, never by its id', async () => {
  const shared = await startResponsesFake(turn('shared'), { idPrefix: 'resp_shared_' });
  let firstDown = false;
  shared.script = (req) => (firstDown && req.headers.authorization === 'Bearer key-1' ? down() : turn('shared')());
  const upstream = failover([openaiResponsesAdapter({ baseURL: shared.url, apiKey: 'key-1', name: 'one' }), openaiResponsesAdapter({ baseURL: shared.url, apiKey: 'key-2', name: 'two' })], { attempts: 2, backoffMs: 1, failureThreshold: 100 });
  const gw2 = await startGateway({ store: new MemoryStore(), models: [{ id: 'gpt', capability: 'llm', upstream, agentReady: true, pricing: PRICING }], responses: { store: true } });
  try {
    const { key } = addCaller(gw2.store);
    const sdk = new OpenAI({ apiKey: key, baseURL: `${gw2.url}/v1`, maxRetries: 0 });
    const first = await sdk.responses.create({ model: 'gpt', input: 'One' });
    expect(shared.answers.at(-1)?.request.headers.authorization).toBe('Bearer key-1');
    firstDown = true;
    const second = await sdk.responses.create({ model: 'gpt', input: 'Two', previous_response_id: first.id });
    const sent = shared.requests.filter((r) => r.headers.authorization === 'Bearer key-2');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body?.previous_response_id).toBeUndefined();
    expect(sent[0]?.text).not.toContain('resp_shared_');
    expect((sent[0]?.body?.input as Json[]).map((i) => i.role)).toEqual(['user', 'assistant', 'user']);
    expect((await logEntry(gw2.store, requestIdOf(second.id))).detail).toContain('chain sent history resent (another upstream stored it)');
  } finally {
    await gw2.close();
    await shared.close();
  }
});

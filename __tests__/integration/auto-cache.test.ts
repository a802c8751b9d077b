/**
 * Automatic prompt caching: chat clients never send `cache_control`, so for an agent-ready model on an Anthropic-format
 * upstream the gateway places the breakpoints itself. A three-turn tool conversation through the openai SDK, to a fake
 * upstream with Anthropic's caching semantics, reads the cache from its second turn and is billed for it; the same
 * conversation on a model with `autoCache: false` pays full input price every turn. A request with breakpoints of its own
 * (Claude Code's) is never touched.
 */
import OpenAI from 'openai';
import request from 'supertest';
import { anthropicAdapter, failover, openaiChatAdapter, type ModelEntry } from '../../lib';
import { costOf } from '../../lib/billing/pricing';
import { agentRequest } from '../helpers/agent-fixtures';
import { startCachingAnthropic, type CachingAnthropic } from '../helpers/fake-anthropic-cache';
import { startOpenAIFake } from '../helpers/fake-openai';
import { failWith, startFake, type FakeServer } from '../helpers/fake-server';
import { addCaller, startGateway, type RunningGateway } from '../helpers/gateway';

// Minor units of a millionth of a dollar: $3 and $15 per million tokens; cache prices Anthropic's defaults ($0.30, $3.75).
const PRICING = { input: 3_000_000, output: 15_000_000 };
// A coding agent's standing prefix: instructions of about 6,000 tokens and three tools.
const SYSTEM = `You are a coding agent working in a repository. ${'Follow the repository conventions, keep changes small, run the tests. '.repeat(340)}`;
const tool = (name: string, description: string) => ({ type: 'function' as const, function: { name, description: description.repeat(40), parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path'] } } });
const TOOLS = [tool('read_file', 'Reads a file of the repository. '), tool('write_file', 'Writes a file of the repository. '), tool('run', 'Runs a shell command. ')];

let upstream: CachingAnthropic;
let down: FakeServer;
let gpt: FakeServer;
let gw: RunningGateway;

beforeAll(async () => {
  [upstream, down, gpt] = await Promise.all([startCachingAnthropic(), startFake((_req, res) => failWith(res, 503)), startOpenAIFake()]);
  const claude = anthropicAdapter({ baseURL: upstream.url });
  const model = (id: string, extra: Partial<ModelEntry> = {}): ModelEntry => ({ id, capability: 'llm', upstream: claude, agentReady: true, pricing: PRICING, ...extra });
  gw = await startGateway({
    models: [
      model('claude'), model('claude-no-cache', { autoCache: false }), model('claude-v1', { agentReady: false }),
      model('gpt-then-claude', { upstream: failover([openaiChatAdapter({ baseURL: down.url }), claude], { backoffMs: 1 }) }),
      model('claude-then-gpt', { upstream: failover([anthropicAdapter({ baseURL: down.url }), openaiChatAdapter({ baseURL: gpt.url })], { backoffMs: 1 }), upstreamModel: 'gpt-json' }),
    ],
  });
});
afterAll(async () => {
  await gw.close();
  await Promise.all([upstream.close(), down.close(), gpt.close()]);
});

/** The caller's log entries once there are `count` of them (each is written after its response). */
async function entriesOf(callerId: string, count: number): Promise<ReturnType<typeof gw.store.getLog>> {
  for (let waited = 0; ; waited += 5) {
    const entries = gw.store.getLog().filter((e) => e.callerId === callerId);
    if (entries.length >= count || waited > 3000) return entries;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Runs the three-turn task through the openai SDK, streaming, sending the whole history each turn as chat agents do. */
async function conversation(model: string): Promise<{ callerId: string; entries: ReturnType<typeof gw.store.getLog> }> {
  const { key, id: callerId } = addCaller(gw.store, { balance: 1_000_000_000 });
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'Fix the bug in app.js' }];
  for (let turn = 1; turn <= 3; turn++) {
    const completion = await client.chat.completions.stream({ model, tools: TOOLS, messages, stream_options: { include_usage: true } }).finalChatCompletion();
    const message = completion.choices[0]?.message;
    messages.push({ role: 'assistant', content: message?.content ?? null, ...(message?.tool_calls ? { tool_calls: message.tool_calls } : {}) });
    for (const call of message?.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: turn === 1 ? 'broken();\n'.repeat(50) : 'written' });
  }
  expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Fixed app.js.' });
  return { callerId, entries: await entriesOf(callerId, 3) };
}

const charged = (callerId: string): number => -gw.store.getLedger().filter((r) => r.callerId === callerId && r.kind === 'charge').reduce((sum, r) => sum + r.amount, 0);

describe('a three-turn chat conversation with tool calls', () => {
  let cached: Awaited<ReturnType<typeof conversation>>;
  let plain: Awaited<ReturnType<typeof conversation>>;
  beforeAll(async () => {
    upstream.usages.length = 0;
    cached = await conversation('claude');
    plain = await conversation('claude-no-cache');
  });

  it('reads from its second turn exactly the prefix the turn before wrote, and is billed each figure at its price', () => {
    const [first, second, third] = upstream.usages;
    expect(first).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: expect.any(Number) });
    expect(first?.cache_creation_input_tokens).toBeGreaterThan(6000);
    for (const [turn, before] of [[second, first], [third, second]] as const) {
      expect(turn?.cache_read_input_tokens).toBe((before?.cache_read_input_tokens ?? 0) + (before?.cache_creation_input_tokens ?? 0));
      expect(turn?.cache_creation_input_tokens).toBeGreaterThan(0); // the new turn, written for the next one
    }
    cached.entries.forEach((entry, i) => {
      const u = upstream.usages[i] as NonNullable<typeof first>;
      expect(entry.usage).toMatchObject({ inputTokens: u.input_tokens, cacheReadInputTokens: u.cache_read_input_tokens, cacheWrite5mInputTokens: u.cache_creation_input_tokens, outputTokens: u.output_tokens });
      expect(entry.cost).toBe(costOf(entry.usage as NonNullable<typeof entry.usage>, PRICING, 'anthropic'));
      expect(entry.billingStatus).toBe('billed');
    });
  });

  it('costs less than the same conversation with autoCache: false, which reads nothing (the saving is in docs/agents.md)', () => {
    expect(upstream.usages.slice(3).every((u) => u.cache_read_input_tokens === 0 && u.cache_creation_input_tokens === 0)).toBe(true);
    const [withCache, without] = [charged(cached.callerId), charged(plain.callerId)];
    // The ledger charges each caller its exact total cost, rounded down once.
    const exact = (entries: typeof cached.entries): number => Math.floor(entries.reduce((sum, e) => sum + Number(e.cost), 0));
    expect([withCache, without]).toEqual([exact(cached.entries), exact(plain.entries)]);
    expect(withCache / without).toBeLessThan(0.55); // measured: 32,416 against 65,187 (docs/agents.md)
  });

  it('the upstream got at most three breakpoints, at the system prompt and the last two user turns', () => {
    const third = upstream.requests[2]?.body as unknown as { system: Array<{ cache_control?: unknown }>; messages: Array<{ role: string; content: Array<{ cache_control?: unknown }> }> };
    expect((upstream.requests[2]?.text ?? '').split('"cache_control"').length - 1).toBe(3);
    expect(third.system.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    expect(third.messages.at(-1)?.content.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    expect(third.messages.at(-3)?.content.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
  });
});

/** The same task as Codex runs it on /v1/responses: developer items, function tools, every item replayed each turn (its own instructions: nothing cached before). */
async function codexConversation(model: string): Promise<{ callerId: string; entries: ReturnType<typeof gw.store.getLog> }> {
  const { key, id: callerId } = addCaller(gw.store, { balance: 1_000_000_000 });
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const tools = TOOLS.map((t) => ({ type: 'function' as const, name: t.function.name, description: t.function.description, parameters: t.function.parameters, strict: false }));
  const input: OpenAI.Responses.ResponseInputItem[] = [
    { role: 'developer', content: `Codex. ${SYSTEM}` }, { role: 'user', content: [{ type: 'input_text', text: 'Fix the bug in app.js' }] },
  ];
  for (let turn = 1; turn <= 3; turn++) {
    const response = await client.responses.stream({ model, tools, input, store: false, include: ['reasoning.encrypted_content'] }).finalResponse();
    for (const item of response.output) {
      input.push(item as OpenAI.Responses.ResponseInputItem);
      if (item.type === 'function_call') input.push({ type: 'function_call_output', call_id: item.call_id, output: turn === 1 ? 'broken();\n'.repeat(50) : 'written' });
    }
  }
  expect(input.at(-1)).toMatchObject({ type: 'message', role: 'assistant' });
  return { callerId, entries: await entriesOf(callerId, 3) };
}

describe('a three-turn Codex-shaped conversation on /v1/responses', () => {
  let cached: Awaited<ReturnType<typeof codexConversation>>;
  let plain: Awaited<ReturnType<typeof codexConversation>>;
  let usages: typeof upstream.usages;
  beforeAll(async () => {
    upstream.usages.length = 0;
    cached = await codexConversation('claude');
    plain = await codexConversation('claude-no-cache');
    usages = [...upstream.usages];
  });

  it('reads from its second turn exactly the prefix the turn before wrote; each call billed its cache-aware cost', () => {
    const [first, second, third] = usages;
    expect(first?.cache_creation_input_tokens).toBeGreaterThan(6000);
    for (const [turn, before] of [[second, first], [third, second]] as const) {
      expect(turn?.cache_read_input_tokens).toBe((before?.cache_read_input_tokens ?? 0) + (before?.cache_creation_input_tokens ?? 0));
    }
    cached.entries.forEach((entry, i) => {
      const u = usages[i] as NonNullable<typeof first>;
      expect(entry).toMatchObject({ endpoint: 'responses', billingStatus: 'billed' });
      expect(entry.usage).toMatchObject({ inputTokens: u.input_tokens, cacheReadInputTokens: u.cache_read_input_tokens, cacheWrite5mInputTokens: u.cache_creation_input_tokens });
      expect(entry.cost).toBe(costOf(entry.usage as NonNullable<typeof entry.usage>, PRICING, 'anthropic'));
    });
  });

  it('costs about half the conversation with autoCache: false', () => {
    expect(usages.slice(3).every((u) => u.cache_read_input_tokens === 0 && u.cache_creation_input_tokens === 0)).toBe(true);
    expect(charged(cached.callerId) / charged(plain.callerId)).toBeLessThan(0.55);
  });
});

describe('what is left alone, and failover groups', () => {
  const post = (body: object) => request(gw.url).post('/v1/messages').set({ 'x-api-key': addCaller(gw.store).key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }).send(JSON.stringify(body));

  it('a request with breakpoints of its own (Claude Code) reaches the upstream byte for byte; a V1 model gets none', async () => {
    upstream.requests.length = 0;
    const body = agentRequest('claude', false);
    expect((await post(body)).status).toBe(200);
    expect(upstream.requests[0]?.text).toBe(JSON.stringify(body));
    expect((await post({ model: 'claude-v1', max_tokens: 10, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] })).status).toBe(200);
    expect(upstream.requests[1]?.text).not.toContain('cache_control');
  });

  it('a failover group places them when an Anthropic member serves; an OpenAI member never sees them', async () => {
    upstream.requests.length = 0;
    const body = { max_tokens: 10, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] };
    expect((await post({ ...body, model: 'gpt-then-claude' })).status).toBe(200);
    expect(upstream.requests[0]?.body?.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }]);
    const res = await post({ ...body, model: 'claude-then-gpt' });
    expect(res.status).toBe(200);
    expect(JSON.stringify(gpt.received.at(-1)?.body)).not.toContain('cache_control');
  });
});

/**
 * The names clients really send: Claude Code without --model asks for its own default (`claude-opus-4-8`, or with `[1m]`),
 * which a model's alias or pattern serves. The request resolves to the catalog model once: the log, the bill and the
 * allow-list (catalog ids) name the model, the answer echoes the name asked on every route, `/v1/models` lists ids only.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { anthropicAdapter, type ModelEntry } from '../../lib';
import { runClaude } from '../helpers/claude-code';
import { DEFAULT_SCRIPT, startAnthropicAgent, type AnthropicAgentFake } from '../helpers/fake-agent-anthropic';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { tempDirs } from '../helpers/local';

const dirs = tempDirs();
let upstream: AnthropicAgentFake;
let plain: GatedFake;
let gw: RunningGateway;
let key: string;

beforeAll(async () => {
  upstream = await startAnthropicAgent(); // scripted for Claude Code's task
  plain = await startAnthropicFake(); // answers any message, JSON or stream
  const agent = anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY });
  const anthropic = anthropicAdapter({ baseURL: plain.url, apiKey: UPSTREAM_KEY });
  const models: ModelEntry[] = [
    { id: 'opus', capability: 'llm', agentReady: true, upstream: agent, upstreamModel: 'claude-opus-4-1', pricing: { input: 1500, output: 7500 }, aliases: ['claude-opus-4-8[1m]'], patterns: ['claude-opus-*'] },
    { id: 'haiku', capability: 'llm', upstream: anthropic, upstreamModel: 'claude-haiku-4-5', pricing: { input: 100, output: 500 }, aliases: ['claude-haiku-4-5-20251001'], patterns: ['claude-haiku-*'] },
    { id: 'sonnet', capability: 'llm', upstream: anthropic, upstreamModel: 'claude-sonnet-4-5', pricing: { input: 300, output: 1500 }, patterns: ['claude-*'] },
  ];
  gw = await startGateway({ models });
  ({ key } = addCaller(gw.store, { models: ['opus', 'haiku'] })); // an allow-list names catalog ids
});
afterAll(async () => {
  await gw.close();
  await Promise.all([upstream.close(), plain.close()]);
});
beforeEach(() => {
  upstream.requests.length = 0;
  upstream.turns.length = 0;
  plain.received.length = 0;
});

it('Claude Code without --model: its own default name resolves by pattern, the task completes, the log and bill name the model', async () => {
  const cwd = await dirs.make();
  const run = await runClaude({ baseURL: gw.url, apiKey: key, prompt: 'Create agent-output.txt', model: undefined, cwd });
  expect(run).toMatchObject({ code: 0, timedOut: false });
  expect(await readFile(path.join(cwd, DEFAULT_SCRIPT.file.name), 'utf8')).toBe(DEFAULT_SCRIPT.file.content);
  const calls = upstream.messages();
  expect(calls.length).toBeGreaterThanOrEqual(2);
  expect(new Set(calls.map((c) => c.body?.model))).toEqual(new Set(['claude-opus-4-1']));
  const entries = gw.store.getLog().filter((e) => e.endpoint === 'messages');
  expect(entries.length).toBeGreaterThanOrEqual(2);
  for (const entry of entries) expect(entry).toMatchObject({ model: 'opus', status: 200, billingStatus: 'billed' });
});

describe('the answer carries the name asked; the log names the catalog model', () => {
  const asked = 'claude-haiku-4-5-20251001';

  it('Messages, JSON and stream (message_start)', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
    const { data, response } = await client.messages.create({ model: asked, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    expect(data.model).toBe(asked);
    expect(plain.received.at(-1)?.body.model).toBe('claude-haiku-4-5');
    expect(await logEntry(gw.store, response.headers.get('request-id') as string)).toMatchObject({ model: 'haiku', billingStatus: 'billed', cost: '0.01' }); // 25 in × 100 + 15 out × 500, per million
    const streamed = await client.messages.stream({ model: 'claude-haiku-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
    expect(streamed.model).toBe('claude-haiku-5');
  });

  it('chat completions and Responses', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const chat = await client.chat.completions.create({ model: asked, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    expect(chat.data.model).toBe(asked);
    expect(await logEntry(gw.store, chat.response.headers.get('request-id') as string)).toMatchObject({ model: 'haiku', endpoint: 'chat_completions' });
    const answer = await client.responses.create({ model: asked, input: 'Hi' });
    expect(answer.model).toBe(asked);
  });

  it("a name of a model outside the caller's allow-list is not found, as the model is", async () => {
    const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
    const error = await client.messages.create({ model: 'claude-sonnet-9', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(plain.received).toHaveLength(0);
  });

  it('/v1/models lists catalog ids only, and a name resolves to its model\'s record', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const list = [];
    for await (const m of client.models.list()) list.push(m.id);
    expect(list).toEqual(['opus', 'haiku']);
    expect((await client.models.retrieve('claude-opus-4-8[1m]')).id).toBe('opus');
  });
});

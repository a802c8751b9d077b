/**
 * The newest `openai` SDK (`openai7`: npm:openai@7, which needs Node 22) against the gateway, as the pinned one is
 * elsewhere: models, chat completions and the Responses API, JSON and streamed, each call billed once in the log; a
 * refusal arrives as the SDK's own error class.
 */
import OpenAI from 'openai7';
import { anthropicAdapter, openaiChatAdapter } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { OPENAI_DELTAS, startOpenAIFake } from '../helpers/fake-openai';
import type { FakeServer } from '../helpers/fake-server';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { devSpec, installedVersion, requireModernNode } from '../helpers/modern-node';

requireModernNode('openai 7');
let anthropic: FakeServer;
let openai: FakeServer;
let gw: RunningGateway;
let client: OpenAI;
let caller: { key: string; id: string };
const PRICING = { input: 1_000_000, output: 2_000_000 };

beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startAnthropicFake(), startOpenAIFake()]);
  gw = await startGateway({
    models: [
      { id: 'chat', capability: 'llm', upstream: openaiChatAdapter({ baseURL: openai.url }), upstreamModel: 'gpt-json', pricing: PRICING },
      { id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: anthropic.url }), upstreamModel: 'claude-json', pricing: PRICING },
    ],
  });
  caller = addCaller(gw.store);
  client = new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await Promise.all([anthropic.close(), openai.close()]);
});

it('is the openai 7 release the package pins', () => {
  const version = installedVersion('openai7');
  expect(`npm:openai@${version}`).toBe(devSpec('openai7'));
  expect(version).toMatch(/^7\./);
});

it('lists the models', async () => {
  const ids: string[] = [];
  for await (const m of client.models.list()) ids.push(m.id);
  expect(ids).toEqual(['chat', 'claude']);
});

it('chat completions, JSON and streamed, billed once each', async () => {
  const json = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
  expect(json.data).toMatchObject({ model: 'chat', choices: [{ message: { content: OPENAI_DELTAS.join('') } }], usage: { prompt_tokens: 30, completion_tokens: 12 } });
  const stream = await client.chat.completions.create({ model: 'chat', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
  let text = '';
  for await (const chunk of stream.data) text += chunk.choices[0]?.delta?.content ?? '';
  expect(text).toBe(OPENAI_DELTAS.join(''));
  for (const res of [json.response, stream.response]) {
    expect(await logEntry(gw.store, res.headers.get('request-id') as string)).toMatchObject({ endpoint: 'chat_completions', status: 200, billingStatus: 'billed' });
  }
});

it('the Responses API, JSON and streamed, over an Anthropic-format upstream', async () => {
  const json = await client.responses.create({ model: 'claude', input: 'Hi', max_output_tokens: 64 });
  expect(json.output_text).toBe('Hello from the fake upstream');
  expect(json.usage).toMatchObject({ input_tokens: 25, output_tokens: 15 });
  const stream = client.responses.stream({ model: 'claude', input: 'Hi', max_output_tokens: 64 });
  const types = new Set<string>();
  for await (const event of stream) types.add(event.type);
  const final = await stream.finalResponse();
  expect(final.output_text).toBe('Hello from the fake upstream');
  expect([...types]).toEqual(expect.arrayContaining(['response.created', 'response.output_text.delta', 'response.completed']));
  for (const id of [json.id, final.id]) {
    expect(await logEntry(gw.store, `req_${id.slice(5)}`)).toMatchObject({ endpoint: 'responses', status: 200, billingStatus: 'billed' });
  }
});

it('an unknown model is the SDK\'s NotFoundError, an empty balance its RateLimitError (insufficient_quota)', async () => {
  await expect(client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'Hi' }] })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  const broke = addCaller(gw.store, { balance: 0 });
  const poor = new OpenAI({ apiKey: broke.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  await expect(poor.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'Hi' }] })).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
});

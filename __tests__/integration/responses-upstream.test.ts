/**
 * The Messages and chat routes on a Responses upstream (openaiResponsesAdapter), through the formats hub: a real-shape
 * Responses stream (reasoning with encrypted content, text, a function call in fragments, usage with cached and
 * cache-write tokens) reaches @anthropic-ai/sdk (stream → finalMessage) and the openai SDK (chat stream) in their own
 * grammars, checked by the grammar checkers; the next turn sends the upstream its own reasoning back and no other; stop
 * reasons map both ways; usage is billed on the figures table.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { costOf } from '../../lib/billing/pricing';
import { openaiResponsesAdapter, type ModelEntry } from '../../lib';
import { functionCall, message, reasoning, responsesUsage, startResponsesFake, type ResponsesFake, type ResponsesTurn } from '../helpers/fake-responses';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { chatViolations, messagesViolations, parseFrames } from '../helpers/stream-grammar';

type Json = Record<string, unknown>;
const PRICING = { input: 3_000, output: 15_000, cacheRead: 300 };
const USAGE = responsesUsage({ input: 1_200, cached: 1_000, cacheWrite: 100, output: 40, reasoning: 12 });
const BLOB = 'gAAAAB-encrypted-by-openai';
const toolTurn = (): ResponsesTurn => ({
  output: [{ ...reasoning(['Plan: look it up', 'then answer'], BLOB), status: 'completed' }, message('Let me check.'), functionCall('lookup', { q: 'weather in Paris, today' }, 'call_abc')],
  usage: USAGE,
});
const TOOLS = [{ name: 'lookup', description: 'Look up', input_schema: { type: 'object' as const, properties: { q: { type: 'string' } }, required: ['q'] } }];

let fake: ResponsesFake;
let gw: RunningGateway;
let key: string;
beforeAll(async () => {
  fake = await startResponsesFake(toolTurn);
  const upstream = openaiResponsesAdapter({ baseURL: fake.url, apiKey: 'sk-up' });
  const models: ModelEntry[] = [{ id: 'gpt', capability: 'llm', upstream, upstreamModel: 'gpt-5.5', agentReady: true, pricing: PRICING }];
  gw = await startGateway({ models });
  key = addCaller(gw.store).key;
});
afterAll(async () => {
  await gw.close();
  await fake.close();
});
beforeEach(() => {
  fake.script = toolTurn;
});

const anthropic = (): Anthropic => new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });

it('takes the base URL with or without /v1', () => {
  const url = 'https://api.example.com';
  for (const baseURL of [url, `${url}/`, `${url}/v1`, `${url}/v1/`]) expect(openaiResponsesAdapter({ baseURL }).endpoint).toBe(`${url}/v1/responses`);
});

it('streams to @anthropic-ai/sdk in the Messages grammar: reasoning, text, a fragmented call; billed on the figures', async () => {
  const raw = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'gpt', max_tokens: 1000, stream: true, system: 'Be brief.', tools: TOOLS, thinking: { type: 'enabled', budget_tokens: 4096 }, messages: [{ role: 'user', content: 'Weather?' }] }),
  });
  expect(messagesViolations(parseFrames(await raw.text()))).toEqual([]);
  expect(fake.answers.at(-1)?.request.body).toEqual({
    model: 'gpt-5.5', input: [{ type: 'message', role: 'user', content: 'Weather?' }], max_output_tokens: 1000, store: false, instructions: 'Be brief.',
    tools: [{ type: 'function', name: 'lookup', description: 'Look up', parameters: TOOLS[0]?.input_schema, strict: false }],
    reasoning: { effort: 'medium', summary: 'auto' }, include: ['reasoning.encrypted_content'], stream: true,
  });
  const entry = await logEntry(gw.store, raw.headers.get('request-id') as string);
  expect(entry.usage).toMatchObject({ inputTokens: 100, cacheReadInputTokens: 1_000, cacheWrite5mInputTokens: 100, outputTokens: 40 });
  expect(entry.cost).toBe(costOf(entry.usage as NonNullable<typeof entry.usage>, PRICING, 'openai'));

  const final = await anthropic().messages.stream({ model: 'gpt', max_tokens: 1000, tools: TOOLS, messages: [{ role: 'user', content: 'Weather?' }] }).finalMessage();
  expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
  expect(final.content[0]).toMatchObject({ thinking: 'Plan: look it up\n\nthen answer' });
  expect(final.content[2]).toMatchObject({ id: 'call_abc', name: 'lookup', input: { q: 'weather in Paris, today' } });
  expect(final).toMatchObject({ stop_reason: 'tool_use', usage: { input_tokens: 100, cache_read_input_tokens: 1_000, cache_creation_input_tokens: 100, output_tokens: 40 } });

  // The next turn: the upstream gets its own reasoning back (id and encrypted content), the call and its output; a
  // thinking block another upstream signed is left out.
  fake.script = () => ({ output: [message('Sunny.')], usage: USAGE });
  const next = await anthropic().messages.create({
    model: 'gpt', max_tokens: 1000, tools: TOOLS,
    messages: [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'anthropic thought', signature: 'EqQBCkYIBxgCKkB-anthropic' }, { type: 'text', text: 'Earlier.' }] },
      { role: 'user', content: 'And now?' },
      { role: 'assistant', content: final.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_abc', content: '21°C' }] },
    ],
  });
  expect(next).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'Sunny.' }] });
  const input = fake.answers.at(-1)?.request.body?.input as Json[];
  expect(input.map((i) => i.type)).toEqual(['message', 'message', 'message', 'reasoning', 'message', 'function_call', 'function_call_output']);
  expect(input[3]).toMatchObject({ id: 'rs_fake_1', encrypted_content: BLOB });
  expect(input[5]).toEqual({ type: 'function_call', call_id: 'call_abc', name: 'lookup', arguments: JSON.stringify({ q: 'weather in Paris, today' }) });
  expect(input[6]).toEqual({ type: 'function_call_output', call_id: 'call_abc', output: '21°C' });
  expect(JSON.stringify(input)).not.toContain('anthropic thought');
});

it('a response cut by max_output_tokens (incomplete) stops with max_tokens, JSON and stream', async () => {
  fake.script = () => ({ output: [message('Cut sh')], usage: USAGE, status: 'incomplete' });
  const made = await anthropic().messages.create({ model: 'gpt', max_tokens: 50, messages: [{ role: 'user', content: 'Long story' }] });
  expect(made.stop_reason).toBe('max_tokens');
  const streamed = await anthropic().messages.stream({ model: 'gpt', max_tokens: 50, messages: [{ role: 'user', content: 'Long story' }] }).finalMessage();
  expect(streamed).toMatchObject({ stop_reason: 'max_tokens', content: [{ type: 'text', text: 'Cut sh' }] });
});

it('streams to the openai SDK on the chat route in the chunk grammar, the call\'s arguments whole', async () => {
  const body = { model: 'gpt', stream: true, tools: [{ type: 'function', function: { name: 'lookup', parameters: TOOLS[0]?.input_schema } }], messages: [{ role: 'user', content: 'Weather?' }] };
  const raw = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(chatViolations(parseFrames(await raw.text()))).toEqual([]);
  const sdk = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const stream = sdk.chat.completions.stream({ model: 'gpt', tools: [{ type: 'function', function: { name: 'lookup', parameters: TOOLS[0]?.input_schema as Json } }], messages: [{ role: 'user', content: 'Weather?' }], stream_options: { include_usage: true } });
  const completion = await stream.finalChatCompletion();
  const choice = completion.choices[0];
  expect(choice?.finish_reason).toBe('tool_calls');
  expect(choice?.message.tool_calls?.[0]).toMatchObject({ id: 'call_abc', function: { name: 'lookup', arguments: JSON.stringify({ q: 'weather in Paris, today' }) } });
  expect(completion.usage).toMatchObject({ prompt_tokens: 1_200, prompt_tokens_details: { cached_tokens: 1_000 } });
});

it('an upstream 429 before the answer is the gateway\'s 429 to the Messages client', async () => {
  fake.script = () => ({ httpStatus: 429, error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null } });
  await expect(anthropic().messages.create({ model: 'gpt', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] })).rejects.toMatchObject({ status: 429 });
});

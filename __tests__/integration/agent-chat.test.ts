/**
 * OpenAI function calling over /v1/chat/completions for agent-ready models, through the openai SDK:
 * to an Anthropic upstream (JSON and streams, parallel calls, results sent back in one user turn,
 * the reasoning the client sends back never reaching Anthropic as a made-up signature), to an
 * OpenAI-format upstream (translated there and back), and what Messages cannot express, refused by name.
 */
import OpenAI from 'openai';
import { anthropicAdapter, openaiChatAdapter, type ModelEntry } from '../../lib';
import { AGENT_SIGNATURE, anthropicUsage, DEFAULT_SCRIPT, startAnthropicAgent, TOOL_USE_ID, type AnthropicAgentFake } from '../helpers/fake-agent-anthropic';
import { DEFAULT_OPENAI_SCRIPT, startOpenAIAgent, type OpenAIAgentFake } from '../helpers/fake-agent-openai';
import { lastOfRole, sendJson, startAgentServer, type AgentServer } from '../helpers/fake-agent-server';
import { addCaller, startGateway, type RunningGateway } from '../helpers/gateway';
import { chatViolations, parseFrames } from '../helpers/stream-grammar';

type Json = Record<string, unknown>;
let claude: AnthropicAgentFake;
let parallel: AgentServer;
let gpt: OpenAIAgentFake;
let gw: RunningGateway;
let key: string;

const CALLS = [{ id: 'toolu_P1', name: 'get_weather', input: { city: 'Paris' } }, { id: 'toolu_P2', name: 'get_weather', input: { city: 'Oslo' } }];
/** An Anthropic upstream that calls get_weather twice at once, then answers once both results came back in one user turn. */
async function startParallelAnthropic(): Promise<AgentServer> {
  return startAgentServer((req, res) => {
    const body = req.body as Json;
    const last = lastOfRole(body, 'user')?.content;
    const results = (Array.isArray(last) ? (last as Json[]) : []).filter((b) => b.type === 'tool_result');
    const content = results.length === 2 ? [{ type: 'text', text: 'Paris 21°, Oslo 9°.' }] : CALLS.map((c) => ({ type: 'tool_use', ...c }));
    const stop_reason = results.length === 2 ? 'end_turn' : 'tool_use';
    const usage = { input_tokens: 40, output_tokens: 30, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    const message = { id: 'msg_p', type: 'message', role: 'assistant', model: body.model, content, stop_reason, stop_sequence: null, usage };
    if (body.stream !== true) return sendJson(res, 200, message);
    const events: Json[] = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null } }];
    content.forEach((block, index) => {
      const json = 'input' in block ? JSON.stringify(block.input) : '';
      events.push({ type: 'content_block_start', index, content_block: 'input' in block ? { ...block, input: {} } : { type: 'text', text: '' } });
      events.push({ type: 'content_block_delta', index, delta: 'input' in block ? { type: 'input_json_delta', partial_json: json } : { type: 'text_delta', text: (block as { text: string }).text } });
      events.push({ type: 'content_block_stop', index });
    });
    events.push({ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: 30 } }, { type: 'message_stop' });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join(''));
  });
}

beforeAll(async () => {
  [claude, parallel, gpt] = await Promise.all([startAnthropicAgent({ file: { name: '/tmp/agent-chat.txt', content: DEFAULT_SCRIPT.file.content } }), startParallelAnthropic(), startOpenAIAgent()]);
  const pricing = { input: 1, output: 1 };
  const models: ModelEntry[] = [
    // The translation is checked as it is: the gateway's own cache breakpoints have their own test (auto-cache.test.ts).
    { id: 'claude-agent', capability: 'llm', upstream: anthropicAdapter({ baseURL: claude.url }), agentReady: true, autoCache: false, pricing },
    { id: 'claude-parallel', capability: 'llm', upstream: anthropicAdapter({ baseURL: parallel.url }), agentReady: true, autoCache: false, pricing },
    { id: 'gpt-parallel', upstreamModel: 'm-parallel', capability: 'llm', upstream: openaiChatAdapter({ baseURL: gpt.url }), agentReady: true, pricing },
    { id: 'claude-v1', capability: 'llm', upstream: anthropicAdapter({ baseURL: claude.url }), pricing },
  ];
  gw = await startGateway({ models });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([claude.close(), parallel.close(), gpt.close()]);
});

const client = (): OpenAI => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const write = { type: 'function' as const, function: { name: 'Write', description: 'Writes a file', parameters: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } }, required: ['file_path', 'content'] } } };
const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const calls = (message: OpenAI.ChatCompletionMessage | undefined) =>
  (message?.tool_calls ?? []).map((c) => (c.type === 'function' ? { id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) as unknown } : c));

describe('to an Anthropic upstream', () => {
  it.each([false, true])('a tool call with its reasoning (stream: %s), then the result sent back: 200, and no made-up signature reaches Anthropic', async (stream) => {
    claude.requests.length = 0;
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'You write files.' }, { role: 'user', content: 'Create the file' }];
    const params = { model: 'claude-agent', tools: [write], tool_choice: 'auto' as const, max_completion_tokens: 1024, messages };
    const first = stream ? await client().chat.completions.stream({ ...params, stream_options: { include_usage: true } }).finalChatCompletion() : await client().chat.completions.create(params);
    const [choice] = first.choices;
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(calls(choice?.message)).toEqual([{ id: TOOL_USE_ID, name: 'Write', input: { file_path: '/tmp/agent-chat.txt', content: DEFAULT_SCRIPT.file.content } }]);
    const usage = anthropicUsage(DEFAULT_SCRIPT.usage.tool) as { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number; output_tokens: number };
    expect(first.usage).toMatchObject({ prompt_tokens: usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens, completion_tokens: usage.output_tokens, prompt_tokens_details: { cached_tokens: usage.cache_read_input_tokens } });
    // What Anthropic got: Messages tools, the system prompt, tool_choice.
    expect(claude.messages()[0]?.body).toMatchObject({ system: 'You write files.', tool_choice: { type: 'auto' }, tools: [{ name: 'Write', description: 'Writes a file', input_schema: write.function.parameters }], messages: [{ role: 'user', content: 'Create the file' }] });
    const reasoning = DEFAULT_SCRIPT.thinking.join('');
    if (!stream) expect(choice?.message).toMatchObject({ reasoning_content: reasoning });
    // The client sends back the call with its reasoning (as DeepSeek clients do), and the result.
    messages.push({ ...(choice?.message as OpenAI.ChatCompletionMessage), reasoning_content: reasoning } as OpenAI.ChatCompletionMessageParam, { role: 'tool', tool_call_id: TOOL_USE_ID, content: 'File created' });
    const second = await client().chat.completions.create({ ...params, messages });
    expect(second.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: DEFAULT_SCRIPT.answer.join('') } });
    const sent = claude.messages()[1];
    expect(sent?.text).not.toContain('model-gateway:');
    expect((sent?.body?.messages as Json[]).slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: TOOL_USE_ID, name: 'Write', input: { file_path: '/tmp/agent-chat.txt', content: DEFAULT_SCRIPT.file.content } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: TOOL_USE_ID, content: 'File created' }] },
    ]);
  });

  it('keeps a genuine signature byte for byte on /v1/messages, dropping only the thinking the gateway made', async () => {
    claude.requests.length = 0;
    const genuine = { type: 'thinking', thinking: DEFAULT_SCRIPT.thinking.join(''), signature: AGENT_SIGNATURE };
    const made = { type: 'thinking', thinking: 'from an OpenAI upstream', signature: 'model-gateway:v1:reasoning_content' };
    const tail = [{ type: 'tool_use', id: TOOL_USE_ID, name: 'Write', input: { file_path: '/tmp/agent-chat.txt', content: 'x' } }];
    const body = (content: Json[]) => ({
      model: 'claude-agent', max_tokens: 1024, stream: false, messages: [
        { role: 'user', content: 'Create the file' }, { role: 'assistant', content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: TOOL_USE_ID, content: 'ok' }] },
      ],
    });
    const post = (content: Json[]) => fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify(body(content)) });
    expect((await post([made, genuine, ...tail])).status).toBe(200);
    expect((await post([genuine, ...tail])).status).toBe(200);
    const [dropped, untouched] = claude.messages().map((r) => r.text);
    expect(dropped).toBe(JSON.stringify(body([genuine, ...tail])));
    expect(untouched).toBe(JSON.stringify(body([genuine, ...tail])));
    expect(dropped).toContain(`"signature":"${AGENT_SIGNATURE}"`);
    // count_tokens forwards the same body, without the gateway's thinking too.
    const { stream: _stream, max_tokens: _max, ...counted } = body([made, genuine, ...tail]);
    const count = await fetch(`${gw.url}/v1/messages/count_tokens`, { method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify(counted) });
    expect(count.status).toBe(200);
    expect(claude.requests.at(-1)?.text).toBe(JSON.stringify({ model: 'claude-agent', messages: body([genuine, ...tail]).messages }));
  });

  it.each([false, true])('parallel calls (stream: %s), their results sent back together first in one user turn', async (stream) => {
    parallel.requests.length = 0;
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris and Oslo?' }];
    const params = { model: 'claude-parallel', tools: [weather], parallel_tool_calls: true, messages };
    let first: OpenAI.ChatCompletion;
    if (stream) {
      const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...params, stream: true }) });
      expect(chatViolations(parseFrames(await res.text()))).toEqual([]);
      first = await client().chat.completions.stream(params).finalChatCompletion();
    } else first = await client().chat.completions.create(params);
    expect(calls(first.choices[0]?.message)).toEqual(CALLS);
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    messages.push(first.choices[0]?.message as OpenAI.ChatCompletionMessageParam, ...CALLS.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: `${c.input.city}: fine` })), { role: 'user', content: 'Thanks' });
    const second = await client().chat.completions.create({ ...params, messages });
    expect(second.choices[0]?.message.content).toBe('Paris 21°, Oslo 9°.');
    expect((parallel.requests.at(-1)?.body?.messages as Json[]).at(-1)).toEqual({
      role: 'user', content: [...CALLS.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: `${c.input.city}: fine` })), { type: 'text', text: 'Thanks' }],
    });
  });
});

it.each([false, true])('to an OpenAI-format upstream, parallel calls come back by index (stream: %s), cached usage kept', async (stream) => {
  const params = { model: 'gpt-parallel', tools: [write], messages: [{ role: 'system' as const, content: 'Primary working directory: /tmp/w\n' }, { role: 'user' as const, content: 'Write both' }] };
  const out = stream ? await client().chat.completions.stream({ ...params, stream_options: { include_usage: true } }).finalChatCompletion() : await client().chat.completions.create(params);
  expect(calls(out.choices[0]?.message)).toEqual(DEFAULT_OPENAI_SCRIPT.files.map((f, i) => ({ id: `call_fake_agent_${i}`, name: 'Write', input: { file_path: `/tmp/w/${f.name}`, content: f.content } })));
  const { prompt_tokens, completion_tokens, cached_tokens } = DEFAULT_OPENAI_SCRIPT.usage.tool;
  expect(out.usage).toMatchObject({ prompt_tokens, completion_tokens, prompt_tokens_details: { cached_tokens } });
  expect(gpt.requests.at(-1)?.body).toMatchObject({ tools: [write], messages: [{ role: 'system', content: 'Primary working directory: /tmp/w\n' }, { role: 'user', content: 'Write both' }] });
});

it.each([
  ['the legacy functions field', { functions: [{ name: 'f' }] }, 'functions: the legacy functions field is not translated; send tools'],
  ['reasoning_effort', { reasoning_effort: 'high' }, 'reasoning_effort: not translated'],
  ['a data URL that is not base64', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png,abc' } }] }] }, 'messages.0.content.0.image_url.url: a data URL must be base64'],
  ['a tool message without its call id', { messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.tool_call_id: Field required'],
  ['arguments that are not JSON', { messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{' } }] }] }, 'messages.0.tool_calls.0.function.arguments: must be a JSON object'],
  ['an image in a system message', { messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] }, 'messages.0.content.0.'],
])('refuses %s for an agent-ready model before any upstream call, naming it', async (_name, extra, message) => {
  const before = claude.requests.length + parallel.requests.length;
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-agent', messages: [{ role: 'user', content: 'Hi' }], ...extra }),
  });
  expect(res.status).toBe(400);
  const { error } = await res.json() as { error: { message: string; param: string | null } };
  expect(error).toEqual({ message: expect.stringContaining(message), type: 'invalid_request_error', code: expect.stringMatching(/^(invalid_value|missing_required_parameter)$/), param: expect.any(String) });
  expect(error.message.startsWith(`${String(error.param)}: `)).toBe(true); // OpenAI's param: the field the refusal names
  expect(claude.requests.length + parallel.requests.length).toBe(before);
});

it('a V1 model keeps refusing tools on the same route, naming the agentReady switch', async () => {
  await expect(client().chat.completions.create({ model: 'claude-v1', tools: [write], messages: [{ role: 'user', content: 'Hi' }] }))
    .rejects.toMatchObject({ status: 400, message: expect.stringContaining('tools: tools are not supported by this gateway (V1 accepts plain text only); an operator accepts it by marking the model agentReady: true') });
});

/**
 * Agents on OpenAI-format upstreams through /v1/messages: Claude Code (the real binary) completes a
 * file task through the gateway to a DeepSeek-style upstream that streams reasoning and a Write call
 * in small fragments, and refuses a tool-call turn sent back without its reasoning; the caller pays
 * exactly what the upstream's usage says (cached tokens at the cached-read price). Then a three-turn
 * tool conversation through @anthropic-ai/sdk, and what the upstream's format cannot express.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openaiChatAdapter, type ModelEntry } from '../../lib';
import { runClaude } from '../helpers/claude-code';
import { DEFAULT_OPENAI_SCRIPT, startOpenAIAgent, type OpenAIAgentFake } from '../helpers/fake-agent-openai';
import { addCaller, startGateway, type RunningGateway } from '../helpers/gateway';

type Json = Record<string, unknown>;
let upstream: OpenAIAgentFake;
let gw: RunningGateway;
const dirs: string[] = [];
// One minor unit per input token, two per output token; cached reads default to half the input price for an OpenAI upstream.
const PRICING = { input: 1_000_000, output: 2_000_000 };

beforeAll(async () => {
  upstream = await startOpenAIAgent();
  const adapter = openaiChatAdapter({ baseURL: upstream.url, apiKey: 'sk-upstream' });
  const model = (id: string, upstreamModel: string): ModelEntry => ({ id, upstreamModel, capability: 'llm', upstream: adapter, agentReady: true, pricing: PRICING });
  gw = await startGateway({ models: [model('deepseek-agent', 'deepseek-strict-reasoning'), model('parallel-agent', 'm-parallel')] });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
beforeEach(() => {
  upstream.script = { ...DEFAULT_OPENAI_SCRIPT };
  upstream.answers.length = 0;
  upstream.requests.length = 0;
});

const { tool, answer } = DEFAULT_OPENAI_SCRIPT.usage;
/** The charge of one turn: fresh input at the input price, cached tokens at half of it, output at the output price. */
const charge = (u: { prompt_tokens: number; completion_tokens: number; cached_tokens: number }): number => (u.prompt_tokens - u.cached_tokens) + u.cached_tokens / 2 + 2 * u.completion_tokens;
const assistantTurns = (body: Json | undefined): Json[] => ((body?.messages ?? []) as Json[]).filter((m) => m.role === 'assistant');

it('Claude Code writes the file through the gateway to a reasoning OpenAI-format upstream, and pays exactly the confirmed usage', async () => {
  const cwd = await mkdtemp(path.join(os.tmpdir(), 'agent-openai-'));
  dirs.push(cwd);
  const { key, id } = addCaller(gw.store);
  const run = await runClaude({ baseURL: gw.url, apiKey: key, prompt: 'Create agent-output.txt', model: 'deepseek-agent', cwd });
  expect(run).toMatchObject({ code: 0, timedOut: false });
  const file = DEFAULT_OPENAI_SCRIPT.files[0] as { name: string; content: string };
  expect(await readFile(path.join(cwd, file.name), 'utf8')).toBe(file.content);
  expect(run.json).toMatchObject({ is_error: false, result: DEFAULT_OPENAI_SCRIPT.answer.join('') });
  // Two turns, each streamed: the call (reasoning, then the Write call in fragments), then the answer to its result.
  expect(upstream.answers.map((a) => [a.kind, a.chunks !== undefined])).toEqual([['tool', true], ['answer', true]]);
  const [first, second] = upstream.requests.map((r) => r.body);
  expect(first).toMatchObject({ model: 'deepseek-strict-reasoning', stream: true, stream_options: { include_usage: true } });
  expect((first?.tools as Json[]).map((t) => (t.function as Json).name)).toContain('Write');
  // Claude Code replayed the thinking block the gateway made; the upstream got its reasoning back on the tool-call turn.
  const [replayed] = assistantTurns(second);
  expect(replayed).toMatchObject({ reasoning_content: DEFAULT_OPENAI_SCRIPT.reasoning.join(''), tool_calls: [{ id: 'call_fake_agent_0', function: { name: 'Write' } }] });
  expect(JSON.parse(((replayed?.tool_calls as Json[])[0]?.function as Json).arguments as string)).toEqual({ file_path: path.join(cwd, file.name), content: file.content });
  expect(((second?.messages ?? []) as Json[]).at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_fake_agent_0' });
  // Billed on each turn's usage: input = prompt − cached at the input price, cached at the cached-read price, output.
  for (let i = 0; i < 100 && gw.store.getLog().filter((e) => e.callerId === id).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  const entries = gw.store.getLog().filter((e) => e.callerId === id);
  expect(entries.map((e) => ({ status: e.status, billing: e.billingStatus, usage: e.usage, charge: e.charge }))).toEqual([tool, answer].map((u) => ({
    status: 200, billing: 'billed', charge: charge(u),
    usage: expect.objectContaining({ inputTokens: u.prompt_tokens - u.cached_tokens, cacheReadInputTokens: u.cached_tokens, cacheWrite5mInputTokens: 0, outputTokens: u.completion_tokens, provenance: 'confirmed' }),
  })));
  expect(gw.store.getAccount(id)).toMatchObject({ balance: 10_000_000 - charge(tool) - charge(answer), held: 0 });
  // Claude Code read the same figures.
  expect(run.json?.usage).toMatchObject({
    input_tokens: tool.prompt_tokens - tool.cached_tokens + answer.prompt_tokens - answer.cached_tokens,
    cache_read_input_tokens: tool.cached_tokens + answer.cached_tokens, output_tokens: tool.completion_tokens + answer.completion_tokens,
  });
}, 30_000);

describe.each(['reasoning_content', 'reasoning'] as const)('a three-turn tool conversation with an upstream that sends %s and requires it back', (field) => {
  it('answers 200 on every turn, the reasoning sent back in the field it came in', async () => {
    upstream.script = { ...DEFAULT_OPENAI_SCRIPT, reasoningField: field, files: [{ name: '/tmp/a.txt', content: 'A' }] };
    const { key } = addCaller(gw.store);
    const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
    const tools = [{ name: 'Write', input_schema: { type: 'object' as const, properties: { file_path: { type: 'string' }, content: { type: 'string' } } } }];
    const base = { model: 'deepseek-agent', max_tokens: 1024, tools };
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Write /tmp/a.txt' }];
    const first = await client.messages.stream({ ...base, messages }).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    expect(first.content[0]).toMatchObject({ thinking: DEFAULT_OPENAI_SCRIPT.reasoning.join(''), signature: `model-gateway:v1:${field}` });
    const call = first.content[1] as Anthropic.ToolUseBlock;
    expect(call.input).toEqual({ file_path: '/tmp/a.txt', content: 'A' });
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'File created' }] });
    const second = await client.messages.create({ ...base, messages }); // JSON this time
    expect(second).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: DEFAULT_OPENAI_SCRIPT.answer.join('') }] });
    messages.push({ role: 'assistant', content: second.content }, { role: 'user', content: 'Now write it again' });
    const third = await client.messages.stream({ ...base, messages }).finalMessage();
    expect(third.stop_reason).toBe('tool_use');
    expect(upstream.requests.map((r) => r.body?.messages !== undefined)).toEqual([true, true, true]);
    for (const sent of upstream.requests.slice(1)) expect(assistantTurns(sent.body)[0]).toMatchObject({ [field]: DEFAULT_OPENAI_SCRIPT.reasoning.join('') });
    // Without the thinking block, the upstream refuses the turn, and its words reach the caller.
    const withoutReasoning = messages.slice(0, 3).map((m) => (m.role === 'assistant' && Array.isArray(m.content) ? { ...m, content: m.content.filter((b) => b.type !== 'thinking') } : m));
    await expect(client.messages.create({ ...base, messages: withoutReasoning })).rejects.toMatchObject({ status: 400, message: expect.stringContaining(`Missing \`${field}\` field in the assistant message at message index 1`) });
  });
});

it('parallel calls in a JSON answer become one tool_use block each, with the cached usage', async () => {
  const { key } = addCaller(gw.store);
  upstream.script = { ...DEFAULT_OPENAI_SCRIPT, files: [{ name: '/tmp/p1.txt', content: '1' }, { name: '/tmp/p2.txt', content: '2' }] };
  const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
  const message = await client.messages.create({ model: 'parallel-agent', max_tokens: 256, messages: [{ role: 'user', content: 'Write both' }] });
  expect(message.content.filter((b) => b.type === 'tool_use').map((b) => (b as Anthropic.ToolUseBlock).input)).toEqual([{ file_path: '/tmp/p1.txt', content: '1' }, { file_path: '/tmp/p2.txt', content: '2' }]);
  expect(message).toMatchObject({ stop_reason: 'tool_use', usage: { input_tokens: tool.prompt_tokens - tool.cached_tokens, cache_read_input_tokens: tool.cached_tokens, output_tokens: tool.completion_tokens } });
});

it.each([
  ['a server tool', { tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools.0.type: the server tool "web_search_20250305" runs on Anthropic upstreams only'],
  ['an uploaded file', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }] }] }, 'messages.0.content.0.source.type'],
  ['top_k', { top_k: 3 }, 'top_k: an OpenAI-format upstream has no top_k'],
])('refuses %s before any upstream call, naming the field', async (_name, extra, message) => {
  const { key } = addCaller(gw.store);
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'deepseek-agent', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }], ...extra }),
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining(message) } });
  expect(upstream.requests).toHaveLength(0);
});

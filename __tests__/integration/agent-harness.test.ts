/** The agent harness on its own, without the gateway: Claude Code (the real binary) against the scripted Anthropic fake, the
 * official SDKs against both fakes, and runClaude's sealing (environment, home, timeout). */
import Anthropic from '@anthropic-ai/sdk';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { runClaude } from '../helpers/claude-code';
import { AGENT_SIGNATURE, agentTurn, DEFAULT_SCRIPT, startAnthropicAgent, TOOL_USE_ID, type AnthropicAgentFake } from '../helpers/fake-agent-anthropic';
import { DEFAULT_OPENAI_SCRIPT, OPENAI_MODES, openaiUsage, startOpenAIAgent, type OpenAIAgentFake, type OpenAIMode } from '../helpers/fake-agent-openai';
import { startAgentServer } from '../helpers/fake-agent-server';

type Json = Record<string, unknown>;
let anthropic: AnthropicAgentFake;
let openai: OpenAIAgentFake;
const dirs: string[] = [];
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agent-harness-'));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startAnthropicAgent(), startOpenAIAgent()]);
});
afterAll(async () => {
  await Promise.all([anthropic.close(), openai.close(), ...dirs.map((d) => rm(d, { recursive: true, force: true }))]);
});
beforeEach(() => {
  anthropic.requests.length = 0;
  anthropic.turns.length = 0;
  anthropic.script = { ...DEFAULT_SCRIPT };
  openai.script = { ...DEFAULT_OPENAI_SCRIPT };
});

const blocks = (m: unknown): Json[] => ((m as { content?: Json[] }).content ?? []);

describe('Claude Code against the fake Anthropic upstream', () => {
  it('completes the file task in two turns and replays the signed thinking block byte for byte', async () => {
    const cwd = await tempDir();
    const run = await runClaude({ baseURL: anthropic.url, apiKey: 'sk-harness', prompt: 'Create agent-output.txt', model: 'claude-fake-agent', cwd, extraEnv: { ANTHROPIC_CUSTOM_HEADERS: 'x-harness-extra: passed' } });
    expect(run).toMatchObject({ code: 0, timedOut: false });
    expect(await readFile(path.join(cwd, DEFAULT_SCRIPT.file.name), 'utf8')).toBe(DEFAULT_SCRIPT.file.content);
    expect(run.json).toMatchObject({ is_error: false, result: DEFAULT_SCRIPT.answer.join('') });
    expect(anthropic.turns).toEqual(['tool', 'answer']);
    // Nothing unscripted: besides the turns, only the HEAD / probe.
    expect(anthropic.requests.map((r) => `${r.method} ${r.path}`).filter((r) => r !== 'POST /v1/messages?beta=true' && r !== 'HEAD /')).toEqual([]);
    // Exactly two: Claude Code answers a refused signature by resending without the thinking blocks, so a third would hide a mangled one.
    expect(anthropic.messages()).toHaveLength(2);
    const [first, second] = anthropic.messages();
    expect(first?.headers).toMatchObject({ 'x-api-key': 'sk-harness', 'anthropic-version': '2023-06-01', 'x-harness-extra': 'passed' });
    expect(first?.body?.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Write' })]));
    // Turn 2 replays turn 1's assistant message: the thinking block (signature byte-identical in the raw body), then the call.
    const thinking = { type: 'thinking', thinking: DEFAULT_SCRIPT.thinking.join(''), signature: AGENT_SIGNATURE };
    expect(second?.text).toContain(JSON.stringify(thinking));
    const messages = (second?.body?.messages ?? []) as Json[];
    const assistant = messages.filter((m) => m.role === 'assistant');
    expect(assistant).toHaveLength(1);
    expect(blocks(assistant[0])).toEqual([thinking, { type: 'tool_use', id: TOOL_USE_ID, name: 'Write', input: { file_path: path.join(cwd, DEFAULT_SCRIPT.file.name), content: DEFAULT_SCRIPT.file.content } }]);
    expect(blocks(messages.at(-1))[0]).toMatchObject({ type: 'tool_result', tool_use_id: TOOL_USE_ID });
    // Claude Code adds up each turn's usage, cache figures included: the fake's figures are what it read.
    const { tool, answer } = DEFAULT_SCRIPT.usage;
    expect(run.json?.usage).toMatchObject({
      input_tokens: tool.input_tokens + answer.input_tokens,
      cache_read_input_tokens: tool.cache_read_input_tokens + answer.cache_read_input_tokens,
      cache_creation: { ephemeral_5m_input_tokens: tool.ephemeral_5m_input_tokens + answer.ephemeral_5m_input_tokens, ephemeral_1h_input_tokens: tool.ephemeral_1h_input_tokens + answer.ephemeral_1h_input_tokens },
      output_tokens: tool.output_tokens + answer.output_tokens,
    });
    expect(existsSync(run.home)).toBe(false);
  });

  it('with non-essential traffic allowed, also gets its session title from the fake, and completes the task', async () => {
    const cwd = await tempDir();
    const run = await runClaude({ baseURL: anthropic.url, apiKey: 'sk-harness', prompt: 'Create agent-output.txt', model: 'claude-fake-agent', cwd, extraEnv: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '' } });
    expect(run.code).toBe(0);
    expect([...anthropic.turns].sort()).toEqual(['answer', 'title', 'tool']);
    expect(await readFile(path.join(cwd, DEFAULT_SCRIPT.file.name), 'utf8')).toBe(DEFAULT_SCRIPT.file.content);
  });

  it('sends a Bearer token, and nothing of the host environment reaches it', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { ANTHROPIC_CUSTOM_HEADERS: 'x-leaked-from-host: yes', ANTHROPIC_API_KEY: 'sk-leaked-from-host' });
    try {
      const run = await runClaude({ baseURL: anthropic.url, authToken: 'tok-harness', prompt: 'Create agent-output.txt', model: 'claude-fake-agent', cwd: await tempDir() });
      expect(run.code).toBe(0);
    } finally {
      process.env = saved;
    }
    for (const r of anthropic.messages()) {
      expect(r.headers.authorization).toBe('Bearer tok-harness');
      expect(r.headers).not.toHaveProperty('x-api-key');
      expect(r.headers).not.toHaveProperty('x-leaked-from-host');
    }
  });

  it('under acceptEdits, does not write outside its working directory', async () => {
    const outside = path.join(await tempDir(), 'outside.txt');
    anthropic.script = { ...DEFAULT_SCRIPT, file: { name: outside, content: 'must not be written' } };
    const run = await runClaude({ baseURL: anthropic.url, apiKey: 'sk-harness', prompt: 'Create outside.txt', model: 'claude-fake-agent', cwd: await tempDir() });
    expect(run.code).toBe(0);
    expect(existsSync(outside)).toBe(false);
    const last = (anthropic.messages()[1]?.body?.messages as Json[]).at(-1);
    expect(blocks(last)[0]).toMatchObject({ type: 'tool_result', is_error: true });
  });

  it('kills a run that outlives its timeout, and removes its home', async () => {
    const stalled = await startAgentServer(() => undefined); // never answers
    try {
      const run = await runClaude({ baseURL: stalled.url, apiKey: 'sk-harness', prompt: 'hi', model: 'claude-fake-agent', cwd: await tempDir(), timeoutMs: 1_500 });
      expect(run).toMatchObject({ code: null, timedOut: true });
      expect(() => process.kill(run.pid as number, 0)).toThrow();
      expect(existsSync(run.home)).toBe(false);
    } finally {
      await stalled.close();
    }
  });
});

describe('the fake Anthropic upstream through @anthropic-ai/sdk', () => {
  const client = (): Anthropic => new Anthropic({ apiKey: 'sk-harness', baseURL: anthropic.url, maxRetries: 0 });
  const params = { model: 'claude-fake-agent', max_tokens: 1024, system: 'Primary working directory: /work/dir\nRest.', messages: [{ role: 'user' as const, content: 'Create the file' }] };

  it('streams exactly what it answers as JSON, framed so the SDK accumulates the same Message', async () => {
    const streamed = await client().messages.stream(params).finalMessage();
    const json = await client().messages.create(params);
    const expected = agentTurn('tool', DEFAULT_SCRIPT, 'claude-fake-agent', '/work/dir/agent-output.txt').message;
    for (const message of [streamed, json]) expect(message).toMatchObject({ ...expected, id: message.id });
    expect(streamed.usage).toMatchObject({ cache_creation_input_tokens: 13_000, cache_creation: { ephemeral_5m_input_tokens: 11_000, ephemeral_1h_input_tokens: 2_000 } });
  });

  it('answers count_tokens and models, refuses a foreign signature and anything unscripted in Anthropic\'s error shape', async () => {
    expect(await client().messages.countTokens({ model: params.model, messages: params.messages })).toEqual({ input_tokens: DEFAULT_SCRIPT.countTokens });
    expect((await client().models.list()).data.map((m) => m.id)).toEqual(DEFAULT_SCRIPT.models);
    const forged = [...params.messages, { role: 'assistant' as const, content: [{ type: 'thinking' as const, thinking: 't', signature: 'forged' }] }, { role: 'user' as const, content: 'go on' }];
    await expect(client().messages.create({ ...params, messages: forged })).rejects.toMatchObject({ status: 400, type: 'invalid_request_error', message: expect.stringContaining('messages.1.content.0: Invalid `signature`') });
    const res = await fetch(`${anthropic.url}/v1/complete`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: expect.stringContaining('POST /v1/complete') } });
    expect(anthropic.requests.at(-1)).toMatchObject({ method: 'POST', path: '/v1/complete', text: '{}' });
  });
});

describe('the fake OpenAI upstream through the openai SDK', () => {
  const client = (): OpenAI => new OpenAI({ apiKey: 'sk-harness', baseURL: `${openai.url}/v1`, maxRetries: 0 });
  const system = { role: 'system' as const, content: 'Primary working directory: /work/dir\nRest.' };
  const tools = [{ type: 'function' as const, function: { name: 'Write', parameters: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } } } } }];
  const written = (i: number): Json => ({ file_path: `/work/dir/${DEFAULT_OPENAI_SCRIPT.files[i]?.name ?? ''}`, content: DEFAULT_OPENAI_SCRIPT.files[i]?.content });
  const ask = (mode: OpenAIMode, messages: OpenAI.ChatCompletionMessageParam[] = [system, { role: 'user', content: 'Create the file' }]) =>
    client().chat.completions.stream({ model: `m-${mode}`, messages, tools, stream_options: { include_usage: true } });

  it.each(OPENAI_MODES)('%s: finalChatCompletion() holds the scripted tool calls, and the fake recorded the exact chunks', async (mode) => {
    const seen: unknown[] = [];
    const final = await ask(mode).on('chunk', (c) => seen.push(c)).finalChatCompletion();
    const answer = openai.answers.at(-1);
    expect(answer).toMatchObject({ mode, kind: 'tool' });
    expect(seen).toEqual(answer?.chunks);
    const [choice] = final.choices;
    expect(choice?.finish_reason).toBe('tool_calls');
    const calls = (choice?.message.tool_calls ?? []).map((c) => (c.type === 'function' ? { id: c.id, name: c.function.name, arguments: c.function.arguments } : c));
    if (mode === 'ollama') {
      // Both calls reuse index 0: an index-keyed accumulator (the SDK's) merges them into one unparseable call.
      expect(new Set(answer?.chunks?.map((c) => JSON.stringify((c.choices as Json[])[0]?.delta)).filter((d) => d?.includes('"index":0,"id"')))).toHaveProperty('size', 2);
      expect(calls).toEqual([{ id: 'call_fake_agent_1', name: 'Write', arguments: JSON.stringify(written(0)) + JSON.stringify(written(1)) }]);
    } else {
      const count = mode === 'parallel' ? 2 : 1;
      expect(calls.map((c) => ({ ...c, arguments: JSON.parse((c as { arguments: string }).arguments) as unknown }))).toEqual(
        Array.from({ length: count }, (_, i) => ({ id: `call_fake_agent_${i}`, name: 'Write', arguments: written(i) })),
      );
    }
    expect(final.usage).toEqual(mode === 'no-usage' ? undefined : openaiUsage(DEFAULT_OPENAI_SCRIPT.usage.tool));
  });

  const toolTurn = (reasoning: boolean): OpenAI.ChatCompletionMessageParam[] => [
    system,
    { role: 'user', content: 'Create the file' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_fake_agent_0', type: 'function', function: { name: 'Write', arguments: JSON.stringify(written(0)) } }], ...(reasoning ? { reasoning_content: 'I will call Write.' } : {}) } as OpenAI.ChatCompletionMessageParam,
    { role: 'tool', tool_call_id: 'call_fake_agent_0', content: 'File created' },
  ];

  it('answers the turn carrying the tool result with text, stop and the usage chunk (content and finish in one chunk too)', async () => {
    for (const mode of ['standard', 'content-finish'] as const) {
      const final = await ask(mode, toolTurn(true)).finalChatCompletion();
      expect(final.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: DEFAULT_OPENAI_SCRIPT.answer.join('') } });
      expect(final.usage).toEqual(openaiUsage(DEFAULT_OPENAI_SCRIPT.usage.answer));
      const chunks = openai.answers.at(-1)?.chunks ?? [];
      const finishing = chunks.filter((c) => (c.choices as Json[])[0]?.finish_reason === 'stop');
      expect(finishing).toHaveLength(1);
      expect((finishing[0]?.choices as Json[])[0]?.delta).toEqual(mode === 'standard' ? {} : { content: DEFAULT_OPENAI_SCRIPT.answer.at(-1) });
    }
  });

  it('strict-reasoning refuses an assistant tool-call turn without reasoning_content, and takes one with it', async () => {
    await expect(ask('strict-reasoning', toolTurn(false)).finalChatCompletion()).rejects.toMatchObject({ status: 400, message: expect.stringContaining('Missing `reasoning_content` field in the assistant message at message index 2') });
    expect((await ask('strict-reasoning', toolTurn(true)).finalChatCompletion()).choices[0]?.finish_reason).toBe('stop');
  });

  it('streams vLLM\'s `reasoning` field when asked, honours include_usage, and answers JSON with the same calls', async () => {
    openai.script = { ...DEFAULT_OPENAI_SCRIPT, reasoningField: 'reasoning' };
    await client().chat.completions.stream({ model: 'm', messages: [system, { role: 'user', content: 'go' }], tools }).finalChatCompletion();
    const chunks = openai.answers.at(-1)?.chunks ?? [];
    const deltas = chunks.map((c) => (c.choices as Json[])[0]?.delta as Json | undefined);
    expect(deltas.map((d) => d?.reasoning).filter(Boolean).join('')).toBe(DEFAULT_OPENAI_SCRIPT.reasoning.join(''));
    expect(deltas.some((d) => d !== undefined && 'reasoning_content' in d)).toBe(false);
    expect(chunks.some((c) => c.usage !== undefined)).toBe(false); // include_usage not asked
    const json = await client().chat.completions.create({ model: 'm', messages: [system, { role: 'user', content: 'go' }], tools });
    expect(json.choices[0]?.message).toMatchObject({ reasoning: DEFAULT_OPENAI_SCRIPT.reasoning.join(''), tool_calls: [{ id: 'call_fake_agent_0', function: { name: 'Write', arguments: JSON.stringify(written(0)) } }] });
    await expect(client().embeddings.create({ model: 'm', input: 'x' })).rejects.toMatchObject({ status: 404, code: 'unknown_url' });
  });
});

/**
 * The scripted upstreams Codex's gateway tests run against, on their own with the official SDKs as clients: each task's tool
 * call names the tool the request offers (apply_patch's one string property read from its schema), the answers carry the
 * scripted cache-aware usage, and the Anthropic fake refuses a replayed thinking block that is altered, moved or missing; it can
 * also take its input figures from a simulated prompt cache, and fall silent (but for pings) in a turn.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ANSWERS, ANTHROPIC_USAGE, CODEX_SIGNATURE, CODEX_THINKING, CODEX_TASKS, EXEC, OPENAI_USAGE, PATCH, taskPrompt, type CodexTask } from '../helpers/codex-tasks';
import { anthropicUsage } from '../helpers/fake-agent-anthropic';
import { openaiUsage } from '../helpers/fake-agent-openai';
import { codexToolUseId, startCodexAnthropic, type CodexAnthropicFake } from '../helpers/fake-codex-anthropic';
import { codexCallId, startCodexOpenAI, type CodexOpenAIFake } from '../helpers/fake-codex-openai';
import { PromptCache } from '../helpers/prompt-cache';

let anthropicFake: CodexAnthropicFake;
let openaiFake: CodexOpenAIFake;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  [anthropicFake, openaiFake] = await Promise.all([startCodexAnthropic(), startCodexOpenAI()]);
  anthropic = new Anthropic({ baseURL: anthropicFake.url, apiKey: 'sk-fake', maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${openaiFake.url}/v1`, apiKey: 'sk-fake', maxRetries: 0 });
});
afterAll(() => Promise.all([anthropicFake.close(), openaiFake.close()]));

// How the gateway presents Codex's tools: apply_patch as a function of one string (its name the gateway's choice), exec_command as is.
const patchTool = (property: string): Anthropic.Tool => ({ name: 'apply_patch', description: 'grammar…', input_schema: { type: 'object', properties: { [property]: { type: 'string' } }, required: [property] } });
const execTool: Anthropic.Tool = { name: 'exec_command', input_schema: { type: 'object', properties: { cmd: { type: 'string' }, workdir: { type: 'string' } }, required: ['cmd'] } };
const TOOLS = [patchTool('input'), execTool, { name: 'view_image', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } }];

async function anthropicTurns(task: CodexTask, tools: Anthropic.Tool[] = TOOLS): Promise<{ first: Anthropic.Message; second: Anthropic.Message }> {
  const user = { role: 'user' as const, content: taskPrompt(task) };
  const first = await anthropic.messages.stream({ model: 'claude-codex', max_tokens: 1_000, tools, messages: [user] }).finalMessage();
  const call = first.content.find((b) => b.type === 'tool_use');
  const second = await anthropic.messages.create({
    model: 'claude-codex', max_tokens: 1_000, tools,
    messages: [user, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call?.id ?? '', content: 'ok' }] }],
  });
  return { first, second };
}

describe('the Anthropic fake', () => {
  it.each(CODEX_TASKS)('%s: a tool turn calling the offered tool, then the answer, each with its cache-aware usage', async (task) => {
    const { first, second } = await anthropicTurns(task);
    const input = task === 'patch' ? { input: PATCH } : { cmd: EXEC.cmd };
    const call = { type: 'tool_use', id: codexToolUseId(task), name: task === 'patch' ? 'apply_patch' : 'exec_command', input };
    const thinking = task === 'reason' ? [{ type: 'thinking', thinking: CODEX_THINKING.join(''), signature: CODEX_SIGNATURE }] : [];
    expect(first).toMatchObject({ stop_reason: 'tool_use', content: [...thinking, call], usage: anthropicUsage(ANTHROPIC_USAGE[task].tool) });
    expect(second).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: ANSWERS[task].join('') }], usage: anthropicUsage(ANTHROPIC_USAGE[task].answer) });
    expect(anthropicFake.turns.slice(-2).map((t) => t.turn)).toEqual(['tool', 'answer']);
  });

  it("reads apply_patch's one string property from its schema, and refuses a schema that is not one string", async () => {
    const { first } = await anthropicTurns('patch', [patchTool('patch_text'), execTool]);
    expect(first.content).toEqual([expect.objectContaining({ name: 'apply_patch', input: { patch_text: PATCH } })]);
    const two: Anthropic.Tool = { name: 'apply_patch', input_schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } } };
    await expect(anthropicTurns('patch', [two, execTool])).rejects.toMatchObject({ status: 400, error: { error: { message: expect.stringContaining('2 properties') } } });
    await expect(anthropicTurns('patch', [execTool])).rejects.toMatchObject({ status: 400, error: { error: { message: expect.stringContaining('no `apply_patch` tool') } } });
  });

  it('refuses the reason task replayed with its thinking altered, moved after the call, or dropped', async () => {
    const user = { role: 'user' as const, content: taskPrompt('reason') };
    const first = await anthropic.messages.create({ model: 'claude-codex', max_tokens: 1_000, tools: TOOLS, messages: [user] });
    const [thinking, call] = first.content as [Anthropic.ThinkingBlock, Anthropic.ToolUseBlock];
    const result: Anthropic.MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'ok' }] };
    const replay = (content: Anthropic.ContentBlockParam[]): Promise<Anthropic.Message> => anthropic.messages.create({ model: 'claude-codex', max_tokens: 1_000, tools: TOOLS, messages: [user, { role: 'assistant', content }, result] });
    await expect(replay([thinking, call])).resolves.toMatchObject({ stop_reason: 'end_turn' });
    const altered = { ...thinking, signature: `${CODEX_SIGNATURE.slice(0, -2)}==` };
    await expect(replay([altered, call])).rejects.toMatchObject({ status: 400, error: { error: { message: expect.stringContaining('Invalid `signature`') } } });
    await expect(replay([call, thinking])).rejects.toMatchObject({ status: 400, error: { error: { message: expect.stringContaining('Expected `thinking`') } } });
    await expect(replay([call])).rejects.toMatchObject({ status: 400, error: { error: { message: expect.stringContaining('Expected `thinking`') } } });
  });

  it('with a cache, its input figures are what the breakpoints read and write (each at its lifetime); the output stays scripted', async () => {
    anthropicFake.cache = new PromptCache();
    try {
      const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: 'You are Codex. '.repeat(200), cache_control: { type: 'ephemeral', ttl: '1h' } }];
      const user: Anthropic.MessageParam = { role: 'user', content: [{ type: 'text', text: taskPrompt('exec'), cache_control: { type: 'ephemeral' } }] };
      const first = await anthropic.messages.create({ model: 'claude-codex', max_tokens: 1_000, tools: TOOLS, system, messages: [user] });
      expect(first.usage).toMatchObject({ input_tokens: 0, cache_read_input_tokens: 0, output_tokens: ANTHROPIC_USAGE.exec.tool.output_tokens });
      expect(first.usage.cache_creation).toEqual({ ephemeral_1h_input_tokens: expect.any(Number), ephemeral_5m_input_tokens: expect.any(Number) });
      const { ephemeral_1h_input_tokens: hour = 0, ephemeral_5m_input_tokens: minutes = 0 } = first.usage.cache_creation ?? {};
      expect(hour).toBeGreaterThan(750); // tools and system
      expect(minutes).toBeGreaterThan(0); // the user's turn
      const again = await anthropic.messages.create({ model: 'claude-codex', max_tokens: 1_000, tools: TOOLS, system, messages: [user] });
      expect(again.usage).toMatchObject({ input_tokens: 0, cache_read_input_tokens: hour + minutes, cache_creation_input_tokens: 0 });
    } finally {
      anthropicFake.cache = undefined;
    }
  });

  it('with a stall, the turn\'s stream falls silent after its opening events but for pings, then goes on', async () => {
    anthropicFake.stall = { turn: 'tool', ms: 300, pingMs: 50 };
    try {
      const res = await fetch(`${anthropicFake.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'claude-codex', max_tokens: 1_000, stream: true, tools: TOOLS, messages: [{ role: 'user', content: taskPrompt('exec') }] }) });
      const started = Date.now();
      const events: Array<[string, number]> = [];
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const name of decoder.decode(chunk).matchAll(/^event: (\w+)$/gm)) events.push([name[1] as string, Date.now() - started]);
      }
      const names = events.map(([name]) => name);
      expect(names.slice(0, 2)).toEqual(['message_start', 'content_block_start']);
      const firstContent = names.findIndex((n, i) => i >= 2 && n !== 'ping');
      expect(firstContent).toBeGreaterThanOrEqual(6); // five pings or more in the silence
      expect(events[firstContent]?.[1]).toBeGreaterThanOrEqual(250);
      expect(names.at(-1)).toBe('message_stop');
    } finally {
      anthropicFake.stall = undefined;
    }
  });
});

describe('the OpenAI chat fake', () => {
  const fns: OpenAI.ChatCompletionTool[] = TOOLS.map((t) => ({ type: 'function', function: { name: t.name, parameters: t.input_schema as Record<string, unknown> } }));

  it.each(CODEX_TASKS)('%s: a streamed tool call of the offered function, then the answer, each with its usage', async (task) => {
    const user = { role: 'user' as const, content: taskPrompt(task) };
    const first = await openai.chat.completions.stream({ model: 'gpt-codex', tools: fns, messages: [user], stream_options: { include_usage: true } }).finalChatCompletion();
    const args = task === 'patch' ? { input: PATCH } : { cmd: EXEC.cmd };
    const name = task === 'patch' ? 'apply_patch' : 'exec_command';
    expect(first.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { tool_calls: [{ id: codexCallId(task), type: 'function', function: { name, arguments: JSON.stringify(args) } }] } });
    expect(first.usage).toEqual(openaiUsage(OPENAI_USAGE[task].tool));
    const assistant = first.choices[0]?.message as OpenAI.ChatCompletionMessage;
    const second = await openai.chat.completions.create({ model: 'gpt-codex', tools: fns, messages: [user, { role: 'assistant', content: null, tool_calls: assistant.tool_calls }, { role: 'tool', tool_call_id: codexCallId(task), content: 'ok' }] });
    expect(second.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: ANSWERS[task].join('') } });
    expect(second.usage).toEqual(openaiUsage(OPENAI_USAGE[task].answer));
  });

  it('streams reasoning_content before the call in the reason task, and names a missing tool', async () => {
    const res = await fetch(`${openaiFake.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-codex', stream: true, tools: fns, messages: [{ role: 'user', content: taskPrompt('reason') }] }) });
    const text = await res.text();
    expect(text.indexOf('reasoning_content')).toBeGreaterThan(0);
    expect(text.indexOf('reasoning_content')).toBeLessThan(text.indexOf('tool_calls'));
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    await expect(openai.chat.completions.create({ model: 'gpt-codex', tools: fns.slice(1), messages: [{ role: 'user', content: taskPrompt('patch') }] })).rejects.toMatchObject({ status: 400, param: 'tools' });
  });
});

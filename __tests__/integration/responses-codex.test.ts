/**
 * Codex-shaped Responses traffic (responses-api reference §2.3: developer items, no instructions,
 * function + namespace + custom apply_patch + built-in tools, client_metadata, the whole history
 * replayed every turn) to both upstream formats: what each upstream receives, and how its calls come
 * back (namespaces, custom tool calls, parallel calls, web search), reasoning across families.
 */
import { anthropicAdapter, openaiChatAdapter, type ModelEntry } from '../../lib';
import { startScripted, UNIT_PRICING as PRICING, type ScriptedTurn, type ScriptedUpstream } from '../helpers/fake-scripted';
import { addCaller, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';
import { responsesViolations } from '../helpers/responses-grammar';
import { parseFrames } from '../helpers/stream-grammar';

type Json = Record<string, unknown>;
const SIGNATURE = 'EqQBCkYIBxgCKkBvb3BzLXNpZ25hdHVyZS1ieXRlcy8rPQ==';
const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+Hello "world" ✓\n*** End Patch\n';
const LARK = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF';

const execCommand = { type: 'function', name: 'exec_command', description: 'Runs a command', strict: false, parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'], additionalProperties: false } };
const namespace = {
  type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents',
  tools: [{ type: 'function', name: 'spawn_agent', description: 'Spawns an agent', parameters: { type: 'object', properties: { task: { type: 'string' } } } }],
};
const applyPatch = { type: 'custom', name: 'apply_patch', description: 'Edits files', format: { type: 'grammar', syntax: 'lark', definition: LARK } };
const TOOLS = [execCommand, namespace, applyPatch, { type: 'web_search', external_web_access: false }, { type: 'tool_search', execution: 'client' }];
const DEVELOPER = [
  { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
  { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions>workspace-write</permissions>' }] },
];
const USER = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Create hello.txt' }] };

/** A Codex 0.169 body: its fields, its tools, its developer items; `input` appended to them. */
const codexBody = (model: string, input: Json[], extra: Json = {}): Json => ({
  model, stream: true, instructions: undefined, input: [...DEVELOPER, ...input], tools: TOOLS, tool_choice: 'auto', parallel_tool_calls: true,
  reasoning: { effort: 'medium', summary: 'auto' }, store: false, include: ['reasoning.encrypted_content'], prompt_cache_key: '019a-thread',
  client_metadata: { originator: 'codex_exec' }, text: { verbosity: 'low' }, ...extra,
});

let claude: ScriptedUpstream;
let gpt: ScriptedUpstream;
let gw: RunningGateway;
let key: string;

beforeAll(async () => {
  const idle = (): ScriptedTurn => ({ text: ['ok'], usage: { input: 1, output: 1 } });
  [claude, gpt] = await Promise.all([startScripted('anthropic', idle), startScripted('openai', idle)]);
  const models: ModelEntry[] = [
    { id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: claude.url }), agentReady: true, autoCache: false, pricing: PRICING }, // translation, not caching (auto-cache.test.ts)
    { id: 'gpt', capability: 'llm', upstream: openaiChatAdapter({ baseURL: gpt.url }), agentReady: true, pricing: PRICING },
    { id: 'claude-v1', capability: 'llm', upstream: anthropicAdapter({ baseURL: claude.url }), pricing: PRICING },
  ];
  gw = await startGateway({ models });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([claude.close(), gpt.close()]);
});

/** Posts a Codex body (a stream, as Codex asks): the frames (grammar checked), the final response and the request id. */
async function turn(body: Json): Promise<{ frames: ReturnType<typeof parseFrames>; response: Json; requestId: string }> {
  const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', 'content-type': 'application/json', originator: 'codex_exec' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  const frames = parseFrames(await res.text());
  expect(responsesViolations(frames)).toEqual([]);
  return { frames, response: (frames.at(-1)?.data as Json).response as Json, requestId: String(res.headers.get('request-id')) };
}

const FORMATS = [['claude', 'anthropic'], ['gpt', 'openai']] as const;
const upstreamOf = (model: string): ScriptedUpstream => (model === 'claude' ? claude : gpt);

describe.each(FORMATS)('%s (%s-format upstream)', (model, format) => {
  it('the request: developer items as the system prompt, tools flattened, built-ins mapped or dropped (and the drop logged), Codex\'s own fields kept back', async () => {
    const upstream = upstreamOf(model);
    upstream.script = () => ({ text: ['ok'], usage: { input: 10, output: 1 } });
    const { requestId } = await turn(codexBody(model, [USER]));
    const sent = upstream.calls().at(-1)?.body as Json;
    const grammar = `Edits files\n\nThe input must follow this lark grammar:\n${LARK}`;
    const oneString = { type: 'object', properties: { input: { type: 'string', description: expect.any(String) } }, required: ['input'], additionalProperties: false };
    const entry = await logEntry(gw.store, requestId);
    if (format === 'anthropic') {
      expect(sent).toMatchObject({ system: 'You are Codex.\n\n<permissions>workspace-write</permissions>', tool_choice: { type: 'auto' }, thinking: { type: 'enabled', budget_tokens: 8192 }, max_tokens: 8192 + 4096, stream: true });
      expect(sent.tools).toEqual([
        { name: 'exec_command', description: 'Runs a command', input_schema: execCommand.parameters },
        { name: 'multi_agent_v1__spawn_agent', description: 'Spawns an agent', input_schema: namespace.tools[0]?.parameters },
        { name: 'apply_patch', description: grammar, input_schema: oneString },
        { type: 'web_search_20250305', name: 'web_search' },
      ]);
      expect(sent.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Create hello.txt' }] }]);
      expect(entry.detail).toBe('responses: dropped tools.4 (tool_search)');
    } else {
      expect((sent.messages as Json[])[0]).toEqual({ role: 'system', content: 'You are Codex.\n\n<permissions>workspace-write</permissions>' });
      expect((sent.tools as Json[]).map((t) => (t.function as Json).name)).toEqual(['exec_command', 'multi_agent_v1__spawn_agent', 'apply_patch']);
      expect(entry.detail).toBe('responses: dropped tools.3 (web_search), tools.4 (tool_search)');
    }
    for (const field of ['client_metadata', 'prompt_cache_key', 'include', 'store', 'text', 'reasoning', 'input', 'parallel_tool_calls']) expect(sent).not.toHaveProperty(field);
  });

  it('a custom tool\'s call comes back as custom_tool_call (its input whole), and its output goes back as a tool result', async () => {
    const upstream = upstreamOf(model);
    upstream.script = (_body, n) => (n % 2 === 0
      ? { calls: [{ id: 'toolu_patch1', name: 'apply_patch', input: { input: PATCH } }], usage: { input: 20, output: 30 } }
      : { text: ['Done.'], usage: { input: 30, output: 2 } });
    upstream.requests.length = 0;
    const first = await turn(codexBody(model, [USER]));
    const call = (first.response.output as Json[]).find((i) => i.type === 'custom_tool_call');
    expect(call).toEqual({ type: 'custom_tool_call', id: expect.stringMatching(/^ctc_/), call_id: 'toolu_patch1', name: 'apply_patch', input: PATCH, status: 'completed' });
    expect(first.frames.filter((f) => f.event?.startsWith('response.custom_tool_call_input')).map((f) => f.event)).toEqual(['response.custom_tool_call_input.delta', 'response.custom_tool_call_input.done']);
    // Codex replays the call with the server's id and adds its output item.
    const replay = [USER, ...(first.response.output as Json[]), { type: 'custom_tool_call_output', call_id: 'toolu_patch1', output: 'Success. Updated the following files:\nA hello.txt' }];
    const second = await turn(codexBody(model, replay));
    expect(second.response).toMatchObject({ status: 'completed', output: [{ type: 'message', content: [{ text: 'Done.' }] }] });
    const messages = upstream.calls().at(-1)?.body?.messages as Json[];
    if (format === 'anthropic') {
      expect(messages.slice(1).map((m) => (m.content as Json[]).filter((b) => b.type !== 'thinking'))).toEqual([
        [{ type: 'tool_use', id: 'toolu_patch1', name: 'apply_patch', input: { input: PATCH } }],
        [{ type: 'tool_result', tool_use_id: 'toolu_patch1', content: 'Success. Updated the following files:\nA hello.txt' }],
      ]);
    } else {
      expect(messages.slice(2)).toEqual([
        { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_patch1', type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify({ input: PATCH }) } }] },
        { role: 'tool', tool_call_id: 'toolu_patch1', content: 'Success. Updated the following files:\nA hello.txt' },
      ]);
    }
  });

  it('parallel calls, one of them namespaced: each a function_call item (its namespace restored); replayed fc, fc, fco, fco as one assistant turn and one result turn', async () => {
    const upstream = upstreamOf(model);
    upstream.script = (_body, n) => (n % 2 === 0
      ? { calls: [{ id: 'call_A', name: 'exec_command', input: { cmd: 'ls' } }, { id: 'call_B', name: 'multi_agent_v1__spawn_agent', input: { task: 'review' } }], usage: { input: 20, output: 30 } }
      : { text: ['Both done.'], usage: { input: 30, output: 2 } });
    upstream.requests.length = 0;
    const first = await turn(codexBody(model, [USER]));
    const calls = (first.response.output as Json[]).filter((i) => i.type === 'function_call');
    expect(calls).toEqual([
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_A', name: 'exec_command', arguments: '{"cmd":"ls"}', status: 'completed' },
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_B', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"task":"review"}', status: 'completed' },
    ]);
    const outputs = [{ type: 'function_call_output', call_id: 'call_A', output: 'a.txt' }, { type: 'function_call_output', call_id: 'call_B', output: 'spawned' }];
    await turn(codexBody(model, [USER, ...calls, ...outputs]));
    const messages = upstream.calls().at(-1)?.body?.messages as Json[];
    if (format === 'anthropic') {
      expect(messages.slice(1)).toEqual([
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_A', name: 'exec_command', input: { cmd: 'ls' } }, { type: 'tool_use', id: 'call_B', name: 'multi_agent_v1__spawn_agent', input: { task: 'review' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_A', content: 'a.txt' }, { type: 'tool_result', tool_use_id: 'call_B', content: 'spawned' }] },
      ]);
    } else {
      expect(messages.slice(2).map((m) => m.role)).toEqual(['assistant', 'tool', 'tool']);
      expect(((messages[2] as Json).tool_calls as Json[]).map((c) => (c.function as Json).name)).toEqual(['exec_command', 'multi_agent_v1__spawn_agent']);
    }
  });

  it('code mode: tools in an additional_tools item are hoisted (one offered twice, once); a developer message mid-history becomes user text in its place', async () => {
    const upstream = upstreamOf(model);
    upstream.script = () => ({ text: ['ok'], usage: { input: 10, output: 1 } });
    const { requestId } = await turn(codexBody(model, [{ type: 'additional_tools', role: 'developer', tools: [execCommand, execCommand] }, USER, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Working.' }], phase: 'commentary' }, { type: 'message', role: 'developer', content: 'Approval granted.' }, { role: 'user', content: 'Go on' }], { tools: [] }));
    const sent = upstream.calls().at(-1)?.body as Json;
    const names = (sent.tools as Json[]).map((t) => t.name ?? (t.function as Json).name);
    expect(names).toEqual(['exec_command']);
    expect((await logEntry(gw.store, requestId)).detail).toBe('responses: dropped input.2.tools.1 (a second tool named exec_command)');
    const turns = (sent.messages as Json[]).filter((m) => m.role !== 'system');
    if (format === 'anthropic') {
      expect(turns).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Create hello.txt' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Working.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Approval granted.' }, { type: 'text', text: 'Go on' }] },
      ]);
    } else {
      expect(turns).toEqual([{ role: 'user', content: 'Create hello.txt' }, { role: 'assistant', content: 'Working.' }, { role: 'user', content: 'Approval granted.\nGo on' }]);
    }
  });

  it('an item_reference names an item of the same request; a call id outside Anthropic\'s charset goes upstream encoded, the same both times', async () => {
    const upstream = upstreamOf(model);
    upstream.script = () => ({ text: ['ok'], usage: { input: 10, output: 1 } });
    const call = { type: 'function_call', id: 'fc_1', call_id: 'call:1/α', name: 'exec_command', arguments: '{"cmd":"ls"}' };
    await turn(codexBody(model, [{ ...USER, id: 'msg_u1' }, call, { type: 'function_call_output', call_id: 'call:1/α', output: 'x' }, { type: 'item_reference', id: 'msg_u1' }]));
    const text = upstream.calls().at(-1)?.text ?? '';
    const encoded = `cid_${Buffer.from('call:1/α').toString('base64url')}`;
    expect(text.split(encoded)).toHaveLength(3); // the call and its result
    expect(text.split('Create hello.txt')).toHaveLength(3); // the message and its reference
  });
});

describe('reasoning across turns and families', () => {
  const CALL: ScriptedTurn = { thinking: { text: ['Plan: list files.'], signature: SIGNATURE }, calls: [{ id: 'toolu_ls', name: 'exec_command', input: { cmd: 'ls' } }], usage: { input: 20, output: 30 } };
  const DONE: ScriptedTurn = { text: ['Listed.'], usage: { input: 30, output: 2 } };

  it('Anthropic thinking round-trips: the replayed reasoning item reaches Anthropic first in its turn, its signature byte for byte', async () => {
    claude.script = (_body, n) => (n % 2 === 0 ? CALL : DONE);
    claude.requests.length = 0;
    const first = await turn(codexBody('claude', [USER]));
    const output = first.response.output as Json[];
    expect(output.map((i) => i.type)).toEqual(['reasoning', 'function_call']);
    expect(output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: 'Plan: list files.' }], encrypted_content: expect.stringMatching(/^mgw\.v2\./) });
    // Codex replays reasoning with content: null and its summary; here after the call, which changes nothing.
    const replay = [USER, output[1] as Json, { ...(output[0] as Json), content: null }, { type: 'function_call_output', call_id: 'toolu_ls', output: 'a.txt' }];
    await turn(codexBody('claude', replay));
    const sent = claude.calls().at(-1);
    expect((sent?.body?.messages as Json[])[1]).toEqual({ role: 'assistant', content: [{ type: 'thinking', thinking: 'Plan: list files.', signature: SIGNATURE }, { type: 'tool_use', id: 'toolu_ls', name: 'exec_command', input: { cmd: 'ls' } }] });
    expect(sent?.text).toContain(`"signature":"${SIGNATURE}"`);
  });

  it('without include, no encrypted_content; without reasoning.summary, an empty summary', async () => {
    claude.script = () => CALL;
    const { response } = await turn(codexBody('claude', [USER], { include: [], reasoning: { effort: 'low' } }));
    expect((response.output as Json[])[0]).toEqual({ type: 'reasoning', id: expect.stringMatching(/^rs_/), summary: [], status: 'completed' });
  });

  it('reasoning an OpenAI-format upstream made, or another server encrypted, never reaches Anthropic as a signature; a foreign one is logged', async () => {
    gpt.script = () => CALL;
    const fromGpt = ((await turn(codexBody('gpt', [USER]))).response.output as Json[]).filter((i) => i.type === 'reasoning');
    expect(fromGpt).toHaveLength(1);
    claude.script = () => DONE;
    const foreign = { type: 'reasoning', id: 'rs_openai', summary: [{ type: 'summary_text', text: 'OpenAI thought' }], content: null, encrypted_content: 'gAAAAABoOpenAIEncrypted' };
    const call = { type: 'function_call', call_id: 'toolu_ls', name: 'exec_command', arguments: '{"cmd":"ls"}' };
    const { requestId } = await turn(codexBody('claude', [USER, ...fromGpt, foreign, call, { type: 'function_call_output', call_id: 'toolu_ls', output: 'a.txt' }]));
    const sent = claude.calls().at(-1);
    expect(sent?.text).not.toContain('model-gateway:');
    expect(sent?.text).not.toContain('gAAAAAB');
    expect((sent?.body?.messages as Json[])[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_ls', name: 'exec_command', input: { cmd: 'ls' } }] });
    expect((await logEntry(gw.store, requestId)).detail).toContain('input.4.encrypted_content (not this gateway\'s)');
  });
});

it('web search on an Anthropic upstream: its server tool runs, the call is a web_search_call item, and the search is billed', async () => {
  claude.script = () => ({ search: { query: 'weather paris' }, text: ['Sunny.'], usage: { input: 100, output: 10, searches: 1 } });
  const { response, requestId } = await turn(codexBody('claude', [USER]));
  expect(claude.calls().at(-1)?.body?.tools).toContainEqual({ type: 'web_search_20250305', name: 'web_search' });
  expect((response.output as Json[]).map((i) => i.type)).toEqual(['web_search_call', 'message']);
  expect((response.output as Json[])[0]).toEqual({ type: 'web_search_call', id: expect.stringMatching(/^ws_/), status: 'completed', action: { type: 'search', query: 'weather paris' } });
  const entry = await logEntry(gw.store, requestId);
  expect(entry).toMatchObject({ usage: { webSearchRequests: 1, inputTokens: 100, outputTokens: 10 }, cost: String(100 + 10 * 2 + 1_000), billingStatus: 'billed' });
});

it('Codex\'s body on a V1 model: 400 naming tools, the agentReady switch in its words', async () => {
  const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(codexBody('claude-v1', [USER])) });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { param: 'tools', message: expect.stringContaining('agentReady: true') } });
});

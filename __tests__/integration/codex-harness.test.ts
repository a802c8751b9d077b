/**
 * The Codex harness on its own, without the gateway: the real Codex CLI, in its loopback-only namespace, against the scripted
 * Responses fake. Text, exec_command, the apply_patch custom tool, a quota error, and a reasoning item replayed byte for byte;
 * then the sealing (only loopback, only the relayed port, a minimal environment, the process tree killed at the timeout).
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import OpenAI from 'openai';
import { CODEX_VERSION, runCodex, type RunCodexOptions } from '../helpers/codex';
import { customToolCall, functionCall, inOrder, message, reasoning, responsesUsage, startResponsesFake, type ResponsesFake } from '../helpers/fake-responses';
import { listen, tempDirs } from '../helpers/local';

type Json = Record<string, unknown>;
let fake: ResponsesFake;
const dirs = tempDirs('codex-harness-');
const KEY = 'sk-codex-harness';
const MODEL = 'gw-codex-model';

// Every figure distinct, so a field read into the wrong place shows.
const FIRST = responsesUsage({ input: 12_000, cached: 9_000, cacheWrite: 2_500, output: 140, reasoning: 40 });
const SECOND = responsesUsage({ input: 12_600, cached: 11_500, cacheWrite: 600, output: 30, reasoning: 0 });

beforeAll(async () => {
  fake = await startResponsesFake(inOrder());
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.answers.length = 0;
});

async function codex(prompt: string, extra: Partial<RunCodexOptions> = {}): Promise<Awaited<ReturnType<typeof runCodex>> & { cwd: string }> {
  const cwd = await dirs.make();
  const run = await runCodex({ baseURL: fake.url, apiKey: KEY, prompt, model: MODEL, cwd, ...extra });
  return { ...run, cwd };
}

const inputOf = (n: number): Json[] => (fake.responses()[n]?.body?.input ?? []) as Json[];
const toolsOf = (n: number): Json[] => (fake.responses()[n]?.body?.tools ?? []) as Json[];

describe('Codex against the scripted Responses server', () => {
  it('answers a plain prompt in one request; the usage it reports is the response usage', async () => {
    fake.script = inOrder({ output: [message('Hello from the fake Responses server.')], usage: FIRST });
    const run = await codex('Say hello');
    expect(run).toMatchObject({ code: 0, timedOut: false, failures: [] });
    expect(run.completed('agent_message').map((i) => i.text)).toEqual(['Hello from the fake Responses server.']);
    expect(run.completed('error')).toEqual([]); // the catalog entry silences the metadata warning
    expect(run.usage).toEqual({ input_tokens: 12_000, cached_input_tokens: 9_000, cache_write_input_tokens: 2_500, output_tokens: 140, reasoning_output_tokens: 40 });
    const [request] = fake.responses();
    expect(fake.requests).toHaveLength(1);
    expect(request?.path).toBe('/v1/responses');
    expect(request?.headers).toMatchObject({ authorization: `Bearer ${KEY}`, accept: 'text/event-stream', originator: 'codex_exec', 'content-type': 'application/json' });
    expect(request?.headers['user-agent']).toMatch(new RegExp(`^codex_exec/${CODEX_VERSION.replace(/\./g, '\\.')} `));
    expect(request?.body).toMatchObject({ model: MODEL, stream: true, store: false, tool_choice: 'auto', parallel_tool_calls: true, include: ['reasoning.encrypted_content'], reasoning: { summary: 'auto' } });
    expect(request?.body).not.toHaveProperty('instructions');
    expect(request?.body).not.toHaveProperty('previous_response_id');
    expect(inputOf(0).map((i) => `${String(i.type)}:${String(i.role)}`)).toEqual(['message:developer', 'message:developer', 'message:user', 'message:user']);
    expect(inputOf(0).at(-1)).toMatchObject({ role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] });
  });

  it('runs an exec_command call and sends its output back as function_call_output in a second request', async () => {
    const call = functionCall('exec_command', { cmd: "printf 'exec ran\\n' > exec-output.txt && cat exec-output.txt" }, 'call_exec_1', 'fc_exec_1');
    fake.script = inOrder({ output: [call], usage: FIRST }, { output: [message('The command ran.', 'msg_exec_2')], usage: SECOND });
    const run = await codex('Run the command');
    expect(run).toMatchObject({ code: 0, failures: [] });
    expect(await readFile(path.join(run.cwd, 'exec-output.txt'), 'utf8')).toBe('exec ran\n');
    expect(run.completed('command_execution')).toEqual([expect.objectContaining({ aggregated_output: 'exec ran\n', exit_code: 0, status: 'completed' })]);
    expect(run.completed('agent_message').map((i) => i.text)).toEqual(['The command ran.']);
    expect(fake.responses()).toHaveLength(2);
    expect(toolsOf(0)).toContainEqual(expect.objectContaining({ type: 'function', name: 'exec_command', strict: false }));
    // The whole history is replayed: the call as the server sent it (its fc_ id kept), then Codex's output for it.
    const [sentCall, output] = inputOf(1).slice(-2);
    expect(sentCall).toEqual({ type: 'function_call', status: 'completed', id: 'fc_exec_1', name: 'exec_command', arguments: call.arguments, call_id: 'call_exec_1' });
    expect(output).toMatchObject({ type: 'function_call_output', call_id: 'call_exec_1', id: expect.stringMatching(/^fco_/) });
    expect(output?.output).toEqual(expect.stringContaining('Process exited with code 0'));
    expect(output?.output).toEqual(expect.stringContaining('exec ran'));
    // turn.completed sums the turn's two requests.
    expect(run.usage).toMatchObject({ input_tokens: 24_600, cached_input_tokens: 20_500, cache_write_input_tokens: 3_100, output_tokens: 170 });
  });

  it('offers apply_patch as a custom tool with a lark grammar, and applies the patch it is sent', async () => {
    const patch = '*** Begin Patch\n*** Add File: notes/patched.txt\n+written through apply_patch\n+"quoted" & ünïcode ✓\n*** End Patch\n';
    fake.script = inOrder({ output: [customToolCall('apply_patch', patch, 'call_patch_1', 'ctc_patch_1')], usage: FIRST }, { output: [message('Patched.', 'msg_patch_2')], usage: SECOND });
    const run = await codex('Create notes/patched.txt');
    expect(run).toMatchObject({ code: 0, failures: [] });
    expect(await readFile(path.join(run.cwd, 'notes', 'patched.txt'), 'utf8')).toBe('written through apply_patch\n"quoted" & ünïcode ✓\n');
    expect(run.completed('file_change')).toEqual([expect.objectContaining({ status: 'completed', changes: [{ path: path.join(run.cwd, 'notes', 'patched.txt'), kind: 'add' }] })]);
    const tool = toolsOf(0).find((t) => t.name === 'apply_patch');
    expect(tool).toMatchObject({ type: 'custom', format: { type: 'grammar', syntax: 'lark', definition: expect.stringContaining('begin_patch') } });
    const [sentCall, output] = inputOf(1).slice(-2);
    expect(sentCall).toMatchObject({ type: 'custom_tool_call', id: 'ctc_patch_1', call_id: 'call_patch_1', name: 'apply_patch', input: patch });
    expect(output).toMatchObject({ type: 'custom_tool_call_output', call_id: 'call_patch_1', id: expect.stringMatching(/^ctco_/), output: expect.stringContaining('Success') });
  });

  it('without a catalog entry the model gets fallback metadata: a warning item, and no apply_patch tool', async () => {
    fake.script = inOrder({ output: [message('ok')], usage: null });
    const run = await codex('Say ok', { catalog: false });
    expect(run).toMatchObject({ code: 0, failures: [] });
    expect(run.completed('error')).toEqual([expect.objectContaining({ message: expect.stringContaining(`Model metadata for \`${MODEL}\` not found`) })]);
    expect(toolsOf(0).map((t) => t.name ?? t.type)).not.toContain('apply_patch');
    expect(toolsOf(0).map((t) => t.name ?? t.type)).toContain('exec_command');
  });

  it('a 429 insufficient_quota costs exactly one request, even with retries configured and a retry-after', async () => {
    const error = { message: 'You exceeded your current quota.', type: 'insufficient_quota', code: 'insufficient_quota', param: null };
    fake.script = () => ({ httpStatus: 429, error, headers: { 'retry-after': '0' } });
    const run = await codex('Say hello', { requestMaxRetries: 2, streamMaxRetries: 2 });
    expect(run.code).toBe(1);
    expect(run.failures).toEqual(expect.arrayContaining([expect.stringMatching(/quota/i)]));
    expect(fake.responses()).toHaveLength(1);
  });

  it('any other 429 is retried only when it carries retry-after, and then at the stream level', async () => {
    const error = { message: 'Rate limit reached.', type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null };
    fake.script = () => ({ httpStatus: 429, error, headers: { 'retry-after': '0' } });
    const retried = await codex('Say hello', { requestMaxRetries: 0, streamMaxRetries: 2 });
    expect(retried.code).toBe(1);
    expect(fake.responses()).toHaveLength(3);
    fake.requests.length = 0;
    fake.script = () => ({ httpStatus: 429, error });
    const once = await codex('Say hello', { requestMaxRetries: 2, streamMaxRetries: 2 });
    expect(once.failures).toEqual(expect.arrayContaining([expect.stringContaining('429 Too Many Requests')]));
    expect(fake.responses()).toHaveLength(1);
  });

  it('replays a reasoning item with its encrypted_content byte for byte, before the call it preceded', async () => {
    // Characters a careless re-serialiser escapes or mangles.
    const encrypted = `gAAAA${Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37 + 11) % 256)).toString('base64')}+/=<>&\u2028`;
    const think = reasoning(['Planning the command.', 'Then running it.'], encrypted, 'rs_think_1');
    const call = functionCall('exec_command', { cmd: 'echo reasoned' }, 'call_reason_1', 'fc_reason_1');
    fake.script = inOrder({ output: [think, call], usage: FIRST }, { output: [message('Reasoned.', 'msg_reason_2')], usage: SECOND });
    const run = await codex('Think, then run');
    expect(run).toMatchObject({ code: 0, failures: [] });
    expect(run.completed('reasoning').map((i) => i.text)).toEqual(['Planning the command.\nThen running it.']);
    const replay = inputOf(1);
    const at = replay.findIndex((i) => i.type === 'reasoning');
    expect(replay[at]).toEqual({ type: 'reasoning', id: 'rs_think_1', summary: think.summary, content: null, encrypted_content: encrypted });
    expect(replay[at + 1]).toMatchObject({ type: 'function_call', id: 'fc_reason_1', call_id: 'call_reason_1' });
    expect(fake.responses()[1]?.text).toContain(JSON.stringify(encrypted).slice(1, -1));
  });
});

describe('the harness seals Codex in', () => {
  it("Codex's commands see only loopback, reach only the relayed port, and get a minimal environment", async () => {
    const other = await listen(http.createServer((_req, res) => res.end('reachable')));
    const port = new URL(other.url).port;
    process.env.CODEX_HARNESS_SECRET = 'must-not-leak';
    try {
      const cmd = `awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/net/dev > net.txt; (exec 3<>/dev/tcp/127.0.0.1/${port} && echo reached || echo refused) > other.txt 2>/dev/null; env > env.txt`;
      fake.script = inOrder({ output: [functionCall('exec_command', { cmd })], usage: null }, { output: [message('done')], usage: null });
      const run = await codex('Inspect');
      expect(run).toMatchObject({ code: 0, failures: [] });
      expect((await readFile(path.join(run.cwd, 'net.txt'), 'utf8')).trim()).toBe('lo');
      expect((await readFile(path.join(run.cwd, 'other.txt'), 'utf8')).trim()).toBe('refused');
      const env = await readFile(path.join(run.cwd, 'env.txt'), 'utf8');
      expect(env).not.toContain('must-not-leak');
      expect(env).toMatch(/^HOME=.*codex-run-/m);
      expect(run.connections).toBeGreaterThanOrEqual(1);
    } finally {
      delete process.env.CODEX_HARNESS_SECRET;
      await other.close();
    }
  });

  it('an abort kills the run and everything it started', async () => {
    // The command leaves a detached loop ticking a file; when the second request arrives, the test aborts the run.
    const cmd = "(setsid sh -c 'while true; do date +%s%N > tick; sleep 0.05; done' > /dev/null 2>&1 &); sleep 0.2; echo started";
    const stop = new AbortController();
    const turns = inOrder({ output: [functionCall('exec_command', { cmd })], usage: null }, { hang: true });
    fake.script = (request) => {
      const turn = turns(request);
      if ('hang' in turn) setImmediate(() => stop.abort());
      return turn;
    };
    const run = await codex('Start the loop', { signal: stop.signal });
    expect(run).toMatchObject({ code: null, timedOut: false });
    const tick = path.join(run.cwd, 'tick');
    const before = await readFile(tick, 'utf8');
    await new Promise((r) => setTimeout(r, 300)); // six ticks' time: a loop still running would have rewritten the file
    expect(await readFile(tick, 'utf8')).toBe(before);
  });

  it('a run that outlives timeoutMs is killed and says so', async () => {
    fake.script = () => ({ hang: true });
    const run = await codex('Wait forever', { timeoutMs: 1_000 });
    expect(run).toMatchObject({ code: null, timedOut: true });
  });

  it('the fake speaks the Responses grammar the openai SDK reads', async () => {
    const think = reasoning(['Summary.'], 'enc');
    fake.script = inOrder({ output: [think, message('SDK text.'), functionCall('lookup', { q: 'x' })], usage: FIRST });
    const client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: KEY, maxRetries: 0 });
    const final = await client.responses.stream({ model: MODEL, input: 'hi' }).finalResponse();
    expect(final.output).toMatchObject(fake.answers[0]?.response?.output ?? []);
    expect(final.output_text).toBe('SDK text.');
    expect(final.usage).toEqual(FIRST);
  });
});

/**
 * Codex CLI itself (the real binary, sealed in a loopback-only namespace) through the gateway's Responses route, mounted and as
 * the standalone binary, to scripted Anthropic-format and OpenAI-chat-format upstreams: it edits a file through apply_patch and
 * runs a command through exec_command; a signed thinking block survives the round trip byte for byte; every upstream call is
 * billed exactly its cache-aware cost, with the gateway's automatic caching read back from Codex's second call; an empty balance
 * costs exactly one request; the route's keep-alive carries Codex through an upstream silence longer than its idle timeout.
 */
import express from 'express';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { anthropicAdapter, createGatewayRouter, MemoryStore, openaiChatAdapter, type LedgerEntry, type Pricing } from '../../lib';
import { processEnv, startBinary } from '../helpers/binary';
import { runCodex, type CodexRun, type RunCodexOptions } from '../helpers/codex';
import { billedCalls, expectBilled, reportedUsage, type BilledCall } from '../helpers/codex-billing';
import { ANSWERS, CODEX_REASONING, CODEX_SIGNATURE, CODEX_THINKING, EXEC, PATCH_FILE, taskPrompt, type CodexTask } from '../helpers/codex-tasks';
import { codexToolUseId, startCodexAnthropic, type CodexAnthropicFake } from '../helpers/fake-codex-anthropic';
import { startCodexOpenAI, type CodexOpenAIFake } from '../helpers/fake-codex-openai';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller, logEntry } from '../helpers/gateway';
import { listen, tempDirs } from '../helpers/local';
import { PromptCache } from '../helpers/prompt-cache';

type Format = 'anthropic' | 'openai';
const FORMATS: Format[] = ['anthropic', 'openai'];
const MODEL: Record<Format, string> = { anthropic: 'codex-claude', openai: 'codex-gpt' };
const PRICING: Pricing = { input: 300, output: 1_500 }; // cache prices: each format's defaults
const OPENING = 10_000;
let anthropic: CodexAnthropicFake;
let openai: CodexOpenAIFake;
const dirs = tempDirs('codex-gw-');

beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startCodexAnthropic(), startCodexOpenAI()]);
});
afterAll(() => Promise.all([anthropic.close(), openai.close()]));
beforeEach(() => {
  for (const fake of [anthropic, openai]) {
    fake.requests.length = 0;
    fake.turns.length = 0;
  }
  anthropic.cache = undefined;
  anthropic.stall = undefined;
});

/** Each call the format's fake answered, as the gateway must bill it. */
const calls = (format: Format): BilledCall[] => billedCalls(format === 'anthropic' ? anthropic.turns : openai.turns, PRICING);

/** Runs a task through the gateway at `url` and checks what Codex did, what it reported, and what reached the upstream. */
async function codexTask(url: string, key: string, format: Format, task: CodexTask, options: Partial<RunCodexOptions> = {}): Promise<CodexRun> {
  const cwd = await dirs.make();
  const run = await runCodex({ baseURL: url, apiKey: key, prompt: taskPrompt(task), model: MODEL[format], cwd, ...options });
  expect({ code: run.code, failures: run.failures }).toEqual({ code: 0, failures: [] });
  if (task === 'patch') {
    expect(await readFile(path.join(cwd, PATCH_FILE.name), 'utf8')).toBe(PATCH_FILE.content);
    expect(run.completed('file_change')).toEqual([expect.objectContaining({ status: 'completed', changes: [{ path: path.join(cwd, PATCH_FILE.name), kind: 'add' }] })]);
  } else {
    expect(await readFile(path.join(cwd, EXEC.file), 'utf8')).toBe(EXEC.output);
    expect(run.completed('command_execution')).toEqual([expect.objectContaining({ aggregated_output: EXEC.output, exit_code: 0 })]);
  }
  expect(run.completed('agent_message').map((m) => m.text)).toEqual([ANSWERS[task].join('')]);
  const fake = format === 'anthropic' ? anthropic : openai;
  expect(fake.turns.map((t) => `${t.task}:${t.turn}`)).toEqual([`${task}:tool`, `${task}:answer`]);
  expect(run.usage).toMatchObject(reportedUsage(calls(format)));
  if (task === 'reason') {
    // Codex shows the reasoning (its summary); the Anthropic upstream gets the signed thinking block back byte for byte, first
    // in the assistant turn of its call, on the next request.
    expect(run.completed('reasoning').map((r) => r.text)).toEqual([(format === 'anthropic' ? CODEX_THINKING : CODEX_REASONING).join('')]);
    if (format === 'anthropic') {
      const second = anthropic.messages()[1];
      expect(second?.text).toContain(`"signature":"${CODEX_SIGNATURE}"`);
      const turn = ((second?.body?.messages ?? []) as Array<{ role: string; content: unknown }>).find((m) => m.role === 'assistant' && JSON.stringify(m.content).includes(codexToolUseId('reason')));
      expect((turn?.content as unknown[])[0]).toEqual({ type: 'thinking', thinking: CODEX_THINKING.join(''), signature: CODEX_SIGNATURE });
    }
  }
  return run;
}

/** A host app with the gateway router over both fakes (`keepAliveMs` as given), counting what reaches `/v1/responses`. */
async function mountedGateway(keepAliveMs?: number): Promise<{ url: string; store: MemoryStore; seen: string[]; close(): Promise<void> }> {
  const store = new MemoryStore();
  const upstreams = { anthropic: anthropicAdapter({ baseURL: anthropic.url, apiKey: UPSTREAM_KEY }), openai: openaiChatAdapter({ baseURL: openai.url, apiKey: UPSTREAM_KEY }) };
  const router = createGatewayRouter({
    store, ...(keepAliveMs === undefined ? {} : { keepAliveMs }),
    models: FORMATS.map((f) => ({ id: MODEL[f], capability: 'llm' as const, agentReady: true, upstream: upstreams[f], pricing: PRICING })),
  });
  const seen: string[] = [];
  const app = express();
  app.use((req, _res, next) => {
    if (req.path === '/v1/responses') seen.push(`${req.method}${req.headers.upgrade ? ` upgrade:${req.headers.upgrade}` : ''}`);
    next();
  });
  app.use(router);
  const server = await listen(app);
  return { url: server.url, store, seen, close: async () => { await server.close(); await router.close(); } };
}

/** A caller's Responses log entries, once there are `count` (the log is written as each answer ends). */
type LogEntries = ReturnType<MemoryStore['getLog']>;
async function logged(store: MemoryStore, callerId: string, count: number): Promise<LogEntries> {
  const mine = (): LogEntries => store.getLog().filter((e) => e.callerId === callerId && e.endpoint === 'responses');
  const until = Date.now() + 5_000;
  while (mine().length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  return Promise.all(mine().map((e) => logEntry(store, e.requestId)));
}

describe('Codex through a mounted router', () => {
  let gw: Awaited<ReturnType<typeof mountedGateway>>;
  beforeAll(async () => {
    gw = await mountedGateway();
  });
  afterAll(() => gw.close());
  beforeEach(() => {
    gw.seen.length = 0;
  });

  // `reason` runs exec_command after reasoning: it covers the exec task too.
  describe.each(FORMATS)('to an %s-format upstream', (format) => {
    it.each(['patch', 'reason'] as CodexTask[])('%s completes; each upstream call is billed exactly its cache-aware cost', async (task) => {
      if (format === 'anthropic') anthropic.cache = new PromptCache(); // Anthropic's caching of the gateway's own breakpoints
      const { key, id } = addCaller(gw.store, { balance: OPENING });
      await codexTask(gw.url, key, format, task);
      if (format === 'anthropic') {
        // Automatic caching (on for agent-ready Anthropic-format models): the first call writes its prompt for 5 minutes, the
        // second reads exactly that back and writes its own new turn.
        const [first, second] = anthropic.turns.map((t) => t.usage);
        expect(first).toMatchObject({ cache_read_input_tokens: 0, ephemeral_1h_input_tokens: 0 });
        expect(first?.ephemeral_5m_input_tokens).toBeGreaterThan(4_000);
        expect(second).toMatchObject({ cache_read_input_tokens: first?.ephemeral_5m_input_tokens, ephemeral_1h_input_tokens: 0 });
        expect(second?.ephemeral_5m_input_tokens).toBeGreaterThan(0);
      }
      const account = { balance: gw.store.getBalance(id), carry: gw.store.getAccount(id).carry };
      expectBilled(calls(format), OPENING, { log: await logged(gw.store, id, 2), ledger: gw.store.listLedger({ callerId: id }).items, account });
    });
  });

  it('an empty balance costs exactly one request, with Codex retrying as it does by default', async () => {
    const { key } = addCaller(gw.store, { balance: 0 });
    const run = await runCodex({ baseURL: gw.url, apiKey: key, prompt: taskPrompt('exec'), model: MODEL.anthropic, cwd: await dirs.make() });
    expect(run.code).toBe(1);
    expect(run.failures).toEqual(expect.arrayContaining([expect.stringMatching(/^Quota exceeded/)]));
    expect(gw.seen).toEqual(['POST']);
    expect(anthropic.requests).toHaveLength(0);
  });

  it('with supports_websockets = true, the upgrade gets 426 once and Codex makes its turns over HTTP POST', async () => {
    const { key, id } = addCaller(gw.store, { balance: OPENING });
    const run = await runCodex({ baseURL: gw.url, apiKey: key, prompt: taskPrompt('exec'), model: MODEL.openai, cwd: await dirs.make(), provider: { supports_websockets: true } });
    expect({ code: run.code, failures: run.failures }).toEqual({ code: 0, failures: [] });
    expect(gw.seen).toEqual(['GET upgrade:websocket', 'POST', 'POST']);
    expect((await logged(gw.store, id, 2)).map((e) => e.status)).toEqual([200, 200]);
    expect(gw.store.getLog().filter((e) => e.endpoint === 'responses' && e.status === 426)).toHaveLength(1); // logged before the POSTs end
  });
});

describe('an upstream silent for longer than Codex\'s stream_idle_timeout_ms, but for pings (no data to Codex)', () => {
  // Codex gives up on a stream after 500 ms without a data event, at once (no retries); the upstream's tool turn falls silent
  // for 1.5 s after its opening events, sending only Anthropic pings (which the route does not pass on).
  const idle: Partial<RunCodexOptions> = { requestMaxRetries: 0, streamMaxRetries: 0, provider: { stream_idle_timeout_ms: 500 } };
  beforeEach(() => {
    anthropic.stall = { turn: 'tool', ms: 1_500, pingMs: 100 };
  });

  it('the route\'s keep-alive (keepAliveMs: 100, a response.in_progress event) keeps Codex waiting: the task completes', async () => {
    const gw = await mountedGateway(100);
    try {
      await codexTask(gw.url, addCaller(gw.store).key, 'anthropic', 'exec', idle);
      expect(gw.seen).toEqual(['POST', 'POST']);
    } finally {
      await gw.close();
    }
  });

  it('with the keep-alive longer than the silence (the default 15 s), Codex times out after one request', async () => {
    const gw = await mountedGateway();
    try {
      const run = await runCodex({ baseURL: gw.url, apiKey: addCaller(gw.store).key, prompt: taskPrompt('exec'), model: MODEL.anthropic, cwd: await dirs.make(), ...idle });
      expect(run.code).toBe(1);
      expect(run.failures).toEqual(expect.arrayContaining([expect.stringMatching(/idle timeout waiting for SSE/)]));
      expect(gw.seen).toEqual(['POST']);
      expect(anthropic.messages()).toHaveLength(1);
    } finally {
      await gw.close();
    }
  });
});

describe('Codex through the standalone binary', () => {
  const admin = 'codex-admin-token-0123456789';
  let gw: { url: string; headers: Record<string, string>; out(): string; stop(): Promise<number | null> };

  beforeAll(async () => {
    const file = path.join(await dirs.make(), 'gateway.yaml');
    await writeFile(file, `
server: { port: 0 }
upstreams:
  anthropic: { type: anthropic, baseURL: "${anthropic.url}", apiKey: "${UPSTREAM_KEY}" }
  openai: { type: openai, baseURL: "${openai.url}", apiKey: "${UPSTREAM_KEY}" }
models:
  - { id: ${MODEL.anthropic}, capability: llm, upstream: anthropic, agentReady: true, pricing: { input: 300, output: 1500 } }
  - { id: ${MODEL.openai}, capability: llm, upstream: openai, agentReady: true, pricing: { input: 300, output: 1500 } }
admin: { tokens: [{ name: ops, token: "${admin}", access: write }] }
`);
    const running = startBinary(['serve', '--config', file], processEnv());
    const url = `http://127.0.0.1:${(await running.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`;
    gw = { url, headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, out: running.out, stop: running.stop };
  });
  afterAll(async () => {
    expect(await gw.stop()).toBe(0);
  });

  async function caller(name: string, balance: number): Promise<string> {
    const created = await (await fetch(`${gw.url}/admin/keys`, { method: 'POST', headers: gw.headers, body: JSON.stringify({ callerId: name }) })).json() as { key: string };
    if (balance > 0) {
      const credited = await fetch(`${gw.url}/admin/accounts/${name}/credits`, { method: 'POST', headers: { ...gw.headers, 'idempotency-key': `opening-${name}` }, body: JSON.stringify({ amount: balance }) });
      expect(credited.status).toBe(200);
    }
    return created.key;
  }
  const admin$ = async <T>(route: string): Promise<T> => (await fetch(`${gw.url}/admin${route}`, { headers: gw.headers })).json() as Promise<T>;

  /** The binary's log lines for a caller's Responses calls: all of them, since a models request made now (by the same caller,
   * after Codex has exited) is logged after every earlier one. */
  async function lines(name: string, key: string): Promise<Array<{ requestId: string; cost: unknown; usage: unknown; status: unknown }>> {
    const mine = (endpoint: string): Array<{ requestId: string; cost: unknown; usage: unknown; status: unknown }> => gw.out().split('\n').filter((l) => l.includes(`"endpoint":"${endpoint}"`) && l.includes(`"callerId":"${name}"`)).map((l) => JSON.parse(l) as { requestId: string; cost: unknown; usage: unknown; status: unknown });
    expect((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    const until = Date.now() + 5_000;
    while (mine('models').length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    return mine('responses');
  }

  // Scripted figures here (the fake ignores the breakpoints): cache reads and both write lifetimes, each at its own price.
  it.each([['anthropic', 'patch'], ['anthropic', 'reason'], ['openai', 'patch'], ['openai', 'exec']] as Array<[Format, CodexTask]>)('%s: %s completes, billed exactly per call', async (format, task) => {
    const name = `codex-${format}-${task}`;
    const key = await caller(name, OPENING);
    await codexTask(gw.url, key, format, task);
    const ledger = (await admin$<{ items: LedgerEntry[] }>(`/accounts/${name}/ledger`)).items;
    expectBilled(calls(format), OPENING, { log: await lines(name, key), ledger, account: await admin$<{ balance: number; carry: string }>(`/accounts/${name}`) });
  });

  it('an empty balance costs exactly one request', async () => {
    const key = await caller('codex-empty', 0);
    const run = await runCodex({ baseURL: gw.url, apiKey: key, prompt: taskPrompt('patch'), model: MODEL.openai, cwd: await dirs.make() });
    expect(run.code).toBe(1);
    expect(run.failures).toEqual(expect.arrayContaining([expect.stringMatching(/^Quota exceeded/)]));
    expect((await lines('codex-empty', key)).map((l) => l.status)).toEqual([429]);
    expect(openai.requests).toHaveLength(0);
  });
});

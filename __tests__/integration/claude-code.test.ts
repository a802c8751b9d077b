/**
 * Claude Code itself (the real binary, headless) through the gateway to a scripted Anthropic upstream: a thinking block and
 * a Write call, then the answer. The file appears, the request reaches the upstream as Claude Code sent it (the replayed
 * signature byte for byte), and the caller is charged exactly the cache-aware price of each upstream call.
 */
import express from 'express';
import { readFile, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { anthropicAdapter, createGatewayRouter, MemoryStore, type GatewayRouter, type Pricing, type RequestLogEntry } from '../../lib';
import { costOf } from '../../lib/billing/pricing';
import { carryCharge } from '../../lib/billing/money';
import { processEnv, startBinary } from '../helpers/binary';
import { runClaude } from '../helpers/claude-code';
import { AGENT_SIGNATURE, DEFAULT_SCRIPT, startAnthropicAgent, type AnthropicAgentFake, type TurnUsage } from '../helpers/fake-agent-anthropic';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller, logEntry } from '../helpers/gateway';
import { listen, tempDirs } from '../helpers/local';

const PRICING: Pricing = { input: 300, output: 1500 }; // cache prices: Anthropic's defaults (30, 375, 600)
const MODEL = 'claude-fake-agent';
let upstream: AnthropicAgentFake;
const dirs = tempDirs();

beforeAll(async () => {
  upstream = await startAnthropicAgent();
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.requests.length = 0;
  upstream.turns.length = 0;
});

/** The exact cost of one scripted turn at Anthropic's default cache prices. */
const turnCost = (u: TurnUsage): string => costOf({
  inputTokens: u.input_tokens, cacheReadInputTokens: u.cache_read_input_tokens, cacheWrite5mInputTokens: u.ephemeral_5m_input_tokens,
  cacheWrite1hInputTokens: u.ephemeral_1h_input_tokens, outputTokens: u.output_tokens,
}, { input: 300, output: 1500, cacheRead: 30, cacheWrite5m: 375, cacheWrite1h: 600 });

/** A host app with the gateway mounted, recording what reached it. */
async function mountedGateway(): Promise<{ url: string; store: MemoryStore; seen: Array<{ headers: http.IncomingHttpHeaders; url: string }>; close(): Promise<void> }> {
  const store = new MemoryStore();
  const router: GatewayRouter = createGatewayRouter({
    store,
    models: [{ id: MODEL, capability: 'llm', agentReady: true, upstream: anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY }), pricing: PRICING }],
  });
  const seen: Array<{ headers: http.IncomingHttpHeaders; url: string }> = [];
  const app = express();
  app.use((req, _res, next) => {
    seen.push({ headers: req.headers, url: req.originalUrl });
    next();
  });
  app.use(router);
  const server = await listen(app);
  return { url: server.url, store, seen, close: async () => { await server.close(); await router.close(); } };
}

describe('Claude Code through a mounted router to an Anthropic upstream', () => {
  it('writes the file, its requests reach the upstream as sent, and each call is charged its exact cache-aware cost', async () => {
    const gw = await mountedGateway();
    try {
      const { key, id } = addCaller(gw.store, { balance: 1_000 });
      const cwd = await dirs.make();
      const run = await runClaude({ baseURL: gw.url, apiKey: key, prompt: 'Create agent-output.txt', model: MODEL, cwd });
      expect(run).toMatchObject({ code: 0, timedOut: false });
      expect(await readFile(path.join(cwd, DEFAULT_SCRIPT.file.name), 'utf8')).toBe(DEFAULT_SCRIPT.file.content);
      expect(upstream.turns).toEqual(['tool', 'answer']);
      // Exactly two calls: Claude Code resends without thinking when a signature is refused, which a third call would show.
      const calls = upstream.messages();
      expect(calls).toHaveLength(2);
      const sent = gw.seen.filter((r) => r.url.startsWith('/v1/messages'));
      expect(sent.map((r) => r.url)).toEqual(['/v1/messages?beta=true', '/v1/messages?beta=true']);
      for (const [i, call] of calls.entries()) {
        // The caller's version and betas, verbatim; the gateway's own key upstream, never the caller's.
        expect(call.headers['anthropic-beta']).toBe(sent[i]?.headers['anthropic-beta']);
        expect(call.headers['anthropic-version']).toBe(sent[i]?.headers['anthropic-version']);
        expect(call.headers['x-api-key']).toBe(UPSTREAM_KEY);
        expect(call.body).toMatchObject({ model: MODEL, stream: true, tools: expect.any(Array), thinking: expect.any(Object), system: expect.any(Array) });
      }
      // Turn 2 replays the thinking block: its signature reaches the upstream byte for byte.
      expect(calls[1]?.text).toContain(`"signature":"${AGENT_SIGNATURE}"`);
      // Each call is billed its exact cost; the caller's charge is their sum rounded down once, through the carry.
      const entries: RequestLogEntry[] = await Promise.all(gw.store.getLog().filter((e) => e.endpoint === 'messages').map((e) => logEntry(gw.store, e.requestId)));
      const { tool, answer } = DEFAULT_SCRIPT.usage;
      expect(entries.map((e) => e.cost)).toEqual([turnCost(tool), turnCost(answer)]);
      expect(entries[0]?.usage).toEqual({
        inputTokens: tool.input_tokens, cacheReadInputTokens: tool.cache_read_input_tokens, cacheWrite5mInputTokens: tool.ephemeral_5m_input_tokens,
        cacheWrite1hInputTokens: tool.ephemeral_1h_input_tokens, outputTokens: tool.output_tokens, webSearchRequests: 0, searchUnits: 0, provenance: 'confirmed',
      });
      const first = carryCharge('0', turnCost(tool));
      const second = carryCharge(first.carry, turnCost(answer));
      expect(gw.store.getBalance(id)).toBe(1_000 - first.charge - second.charge);
      expect(gw.store.getAccount(id).carry).toBe(second.carry);
    } finally {
      await gw.close();
    }
  });
});

describe("Claude Code's max_tokens 32000 on a model capped at 16384", () => {
  it('clampMaxTokens lowers it (and the thinking budget) at the gateway; CLAUDE_CODE_MAX_OUTPUT_TOKENS lowers it at the client', async () => {
    const store = new MemoryStore();
    const adapter = anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY });
    const capped = { capability: 'llm' as const, agentReady: true, upstream: adapter, pricing: PRICING, maxOutputTokens: 16384 };
    const router = createGatewayRouter({ store, models: [{ ...capped, id: 'claude-clamped', clampMaxTokens: true }, { ...capped, id: 'claude-capped' }] });
    const server = await listen(express().use(router));
    try {
      const { key } = addCaller(store, { balance: 1_000 });
      const runs: Array<{ model: string; extraEnv: Record<string, string> }> = [{ model: 'claude-clamped', extraEnv: {} }, { model: 'claude-capped', extraEnv: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '16384' } }];
      for (const { model, extraEnv } of runs) {
        upstream.requests.length = 0;
        const run = await runClaude({ baseURL: server.url, apiKey: key, prompt: 'Create agent-output.txt', model, cwd: await dirs.make(), extraEnv });
        expect(run).toMatchObject({ code: 0, timedOut: false });
        const bodies = upstream.messages().map((r) => r.body as { max_tokens: number; thinking?: { budget_tokens?: number } });
        expect(bodies.length).toBeGreaterThanOrEqual(2);
        for (const body of bodies) expect([body.max_tokens, body.thinking?.budget_tokens ?? 16383]).toEqual([16384, 16383]);
      }
      const clamped = store.getLog().filter((e) => e.model === 'claude-clamped' && e.endpoint === 'messages');
      expect(clamped.every((e) => e.status === 200 && /^max_tokens 32000 clamped to 16384/.test(e.detail ?? ''))).toBe(true);
    } finally {
      await server.close();
      await router.close();
    }
  });
});

describe('Claude Code through the standalone binary', () => {
  it('writes the file; the caller is charged exactly and the log line shows the cache breakdown', async () => {
    const dir = await dirs.make();
    const file = path.join(dir, 'gateway.yaml');
    const admin = 'claude-code-admin-token-0123';
    await writeFile(file, `
server: { port: 0 }
upstreams:
  anthropic: { type: anthropic, baseURL: "${upstream.url}", apiKey: "${UPSTREAM_KEY}" }
models:
  - { id: ${MODEL}, capability: llm, upstream: anthropic, agentReady: true, pricing: { input: 300, output: 1500 } }
admin: { tokens: [{ name: ops, token: "${admin}", access: write }] }
`);
    const gw = startBinary(['serve', '--config', file], processEnv());
    try {
      const url = `http://127.0.0.1:${(await gw.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`;
      const headers = { authorization: `Bearer ${admin}`, 'content-type': 'application/json' };
      const created = await (await fetch(`${url}/admin/keys`, { method: 'POST', headers, body: JSON.stringify({ callerId: 'agent-team' }) })).json() as { key: string };
      const credited = await fetch(`${url}/admin/accounts/agent-team/credits`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'opening' }, body: JSON.stringify({ amount: 1_000 }) });
      expect(credited.status).toBe(200);
      const cwd = await dirs.make();
      const run = await runClaude({ baseURL: url, apiKey: created.key, prompt: 'Create agent-output.txt', model: MODEL, cwd });
      expect(run).toMatchObject({ code: 0, timedOut: false });
      expect(await readFile(path.join(cwd, DEFAULT_SCRIPT.file.name), 'utf8')).toBe(DEFAULT_SCRIPT.file.content);
      expect(upstream.messages()).toHaveLength(2);
      const { tool, answer } = DEFAULT_SCRIPT.usage;
      const first = carryCharge('0', turnCost(tool));
      const second = carryCharge(first.carry, turnCost(answer));
      const account = await (await fetch(`${url}/admin/accounts/agent-team`, { headers })).json() as { balance: number; carry: string };
      expect(account).toMatchObject({ balance: 1_000 - first.charge - second.charge, carry: second.carry });
      // One log line per call, with its usage broken down and its exact cost.
      await gw.waitFor(/"endpoint":"messages"[^]*"endpoint":"messages"/);
      const lines = gw.out().split('\n').filter((l) => l.includes('"endpoint":"messages"')).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.map((l) => l.cost)).toEqual([turnCost(tool), turnCost(answer)]);
      expect(lines[1]?.usage).toMatchObject({
        inputTokens: answer.input_tokens, cacheReadInputTokens: answer.cache_read_input_tokens, cacheWrite5mInputTokens: answer.ephemeral_5m_input_tokens,
        cacheWrite1hInputTokens: answer.ephemeral_1h_input_tokens, outputTokens: answer.output_tokens,
      });
    } finally {
      expect(await gw.stop()).toBe(0);
    }
  });
});

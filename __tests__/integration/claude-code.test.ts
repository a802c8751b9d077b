/**
 * Claude Code itself (the pinned release's real binary, headless) through the gateway to a scripted Anthropic upstream: a
 * thinking block and a Write call, then the answer (helpers/claude-code-cases.ts, which also runs the newest release); a
 * model capped below Claude Code's max_tokens; the standalone binary.
 */
import express from 'express';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { anthropicAdapter, createGatewayRouter, MemoryStore, type Pricing } from '../../lib';
import { carryCharge } from '../../lib/billing/money';
import { processEnv, startBinary } from '../helpers/binary';
import { runClaude } from '../helpers/claude-code';
import { claudeCodeFileTask, turnCost } from '../helpers/claude-code-cases';
import { DEFAULT_SCRIPT, startAnthropicAgent, type AnthropicAgentFake } from '../helpers/fake-agent-anthropic';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller } from '../helpers/gateway';
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

claudeCodeFileTask('@anthropic-ai/claude-code');

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

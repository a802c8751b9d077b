/**
 * The real Claude Code under budgets: a per-session cap stops it at the cap, at the first turn or
 * mid-task, with the refusal printed and no retry; a run key that ends mid-run refuses the next turn.
 */
import express from 'express';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { anthropicAdapter, createGatewayRouter, MemoryStore, type GatewayRouter } from '../../lib';
import type { BudgetCap } from '../../lib/schemas/budgets';
import { hashKey } from '../../lib/stores/hash';
import { runClaude } from '../helpers/claude-code';
import { DEFAULT_SCRIPT, startAnthropicAgent, type AnthropicAgentFake } from '../helpers/fake-agent-anthropic';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { listen, tempDirs } from '../helpers/local';

jest.setTimeout(60_000);
const MODEL = 'claude-fake-agent';
const dirs = tempDirs();
let upstream: AnthropicAgentFake;
let store: MemoryStore;
let router: GatewayRouter;
let url: string;
let close: () => Promise<void>;
/** The gateway's clock: real time, unless a test moves it. */
let clock: () => number = Date.now;
/** Every request that reached the gateway, with the key it carried. */
const seen: Array<{ url: string; key: string | undefined }> = [];

beforeAll(async () => {
  upstream = await startAnthropicAgent();
  store = new MemoryStore();
  router = createGatewayRouter({
    store, budgets: { clock: () => clock() },
    models: [{ id: MODEL, capability: 'llm', agentReady: true, upstream: anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY }), pricing: { input: 3000, output: 15_000 } }],
  });
  const app = express();
  app.use((req, _res, next) => { seen.push({ url: req.originalUrl, key: req.headers['x-api-key'] as string | undefined }); next(); });
  app.use(router);
  ({ url, close } = await listen(app));
});
afterAll(async () => {
  await close();
  await router.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
  upstream.turns.length = 0;
  seen.length = 0;
  clock = Date.now;
});

const daily = (amount: number | null): BudgetCap => ({ amount, period: 'day', timeZone: 'UTC', requests: null, tokens: null });

/** A key on a new account whose budget caps each session; with `runKeys`, it may mint run keys. */
function keyWith(perSession: BudgetCap | null, runKeys: { maxAmount: number; maxTtlSeconds: number } | null = null): { secret: string; keyId: string; callerId: string } {
  const callerId = `cc_${Math.random().toString(36).slice(2, 10)}`;
  const secret = `sk-cc-budget-${callerId}-0123456789`;
  const record = store.createKey({ keyHash: hashKey(secret), prefix: 'sk-cc', callerId, runKeys, budget: { amount: null, period: 'day', timeZone: 'UTC', requests: null, tokens: null, perSession, perSubagent: null } });
  store.credit({ callerId, amount: 1_000_000, idempotencyKey: `open-${callerId}` });
  return { secret, keyId: record.keyId, callerId };
}

const posts = (key: string) => seen.filter((r) => r.url.startsWith('/v1/messages') && r.key === key);
const resultOf = (run: { json: Record<string, unknown> | undefined }) => String(run.json?.result ?? '');

describe('Claude Code under a per-session cap', () => {
  it('stops at the cap: refused at the first turn, or mid-task once the session spent what it may; printed, exit 1, never retried', async () => {
    // A cap below one turn's bound: the first request is refused, once, and Claude Code says why.
    const tight = keyWith(daily(1));
    const first = await runClaude({ baseURL: url, apiKey: tight.secret, prompt: 'Create agent-output.txt', model: MODEL, cwd: await dirs.make() });
    expect(first).toMatchObject({ code: 1, timedOut: false, json: { is_error: true, api_error_status: 402 } });
    expect(resultOf(first)).toMatch(/^API Error: 402 Budget exhausted: the daily session budget "session:key:key_[0-9a-f]+\/[0-9a-f-]{36}": this request may cost up to (\d+); 1 left; it resets at /);
    expect(posts(tight.secret)).toHaveLength(1);
    expect(upstream.turns).toEqual([]);
    const turnBound = Number(/may cost up to (\d+);/.exec(resultOf(first))?.[1]);

    // A cap that holds the first turn's bound but not the first turn's cost plus the second's bound: the task stops after its tool call.
    upstream.turns.length = 0;
    const capped = keyWith(daily(turnBound + 20));
    const cwd = await dirs.make();
    const run = await runClaude({ baseURL: url, apiKey: capped.secret, prompt: 'Create agent-output.txt', model: MODEL, cwd });
    expect(run).toMatchObject({ code: 1, timedOut: false, json: { is_error: true, api_error_status: 402 } });
    expect(resultOf(run)).toMatch(/^API Error: 402 Budget exhausted: the daily session budget "session:key:key_[0-9a-f]+\/[0-9a-f-]{36}": this request may cost up to \d+; \d+ left; it resets at \d{4}-\d{2}-\d{2}T00:00:00\+00:00 \(UTC\)\.$/);
    expect(await readFile(path.join(cwd, DEFAULT_SCRIPT.file.name), 'utf8')).toBe(DEFAULT_SCRIPT.file.content); // the first turn's tool ran
    expect(upstream.turns).toEqual(['tool']);
    expect(posts(capped.secret)).toHaveLength(2); // the refused turn was not sent again

    // The session Claude Code named is the scope: spent the first turn's charge, never above the cap, nothing held.
    const [entry] = store.getLog().filter((e) => e.callerId === capped.callerId && e.status === 200);
    expect(entry).toMatchObject({ keyId: capped.keyId, sessionSource: 'x-claude-code-session-id', sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const usage = store.budgetUsage({ prefix: `session:key:${capped.keyId}/` }).items;
    expect(usage).toEqual([expect.objectContaining({ scope: `session:key:${capped.keyId}/${entry?.sessionId}`, spent: entry?.charge, held: 0, requests: 1, excess: 0 })]);
    expect(usage[0]?.spent).toBeLessThanOrEqual(turnBound + 20);
  });
});

describe('Claude Code on a run key', () => {
  it('a run key that ends mid-run: the next turn is refused (401, its end named), printed, never retried', async () => {
    const parent = keyWith(null, { maxAmount: 10_000, maxTtlSeconds: 600 });
    const minted = await fetch(`${url}/v1/keys/run`, { method: 'POST', headers: { 'x-api-key': parent.secret, 'content-type': 'application/json' }, body: JSON.stringify({ amount: 10_000, ttlSeconds: 600 }) });
    expect(minted.status).toBe(201);
    const run = await minted.json() as { key: string; record: { expiresAt: number } };
    // The gateway's clock reaches the run key's end as soon as the first turn was served.
    clock = () => (upstream.turns.length >= 1 ? run.record.expiresAt : Date.now());
    const cwd = await dirs.make();
    const result = await runClaude({ baseURL: url, apiKey: run.key, prompt: 'Create agent-output.txt', model: MODEL, cwd });
    expect(result).toMatchObject({ code: 1, timedOut: false, json: { is_error: true, api_error_status: 401 } });
    expect(resultOf(result)).toBe('Invalid API key · Fix external API key'); // Claude Code's own words for a 401 mid-run
    expect(await readFile(path.join(cwd, DEFAULT_SCRIPT.file.name), 'utf8')).toBe(DEFAULT_SCRIPT.file.content);
    expect(upstream.turns).toEqual(['tool']);
    expect(posts(run.key)).toHaveLength(2);
    // What the gateway answered that turn: its end, named.
    const again = await fetch(`${url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': run.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }) });
    expect([again.status, await again.json()]).toEqual([401, expect.objectContaining({ error: { type: 'authentication_error', message: `invalid x-api-key: the key expired at ${new Date(run.record.expiresAt).toISOString()}` } })]);
  });
});

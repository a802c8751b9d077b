/**
 * Claude Code (the real binary, headless) through a mounted router to a scripted Anthropic upstream: a thinking block and
 * a Write call, then the answer. The file appears, the request reaches the upstream as Claude Code sent it (the replayed
 * signature byte for byte), and the caller is charged exactly the cache-aware price of each upstream call. Run for each
 * release the suite tests, by the package it is installed under.
 */
import express from 'express';
import { readFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { anthropicAdapter, createGatewayRouter, MemoryStore, type GatewayRouter, type Pricing, type RequestLogEntry } from '../../lib';
import { costOf } from '../../lib/billing/pricing';
import { carryCharge } from '../../lib/billing/money';
import { runClaude } from './claude-code';
import { AGENT_SIGNATURE, DEFAULT_SCRIPT, startAnthropicAgent, type AnthropicAgentFake, type TurnUsage } from './fake-agent-anthropic';
import { UPSTREAM_KEY } from './fake-server';
import { addCaller, logEntry } from './gateway';
import { listen, tempDirs } from './local';

const PRICING: Pricing = { input: 300, output: 1500 }; // cache prices: Anthropic's defaults (30, 375, 600)
const MODEL = 'claude-fake-agent';

/** The exact cost of one scripted turn at Anthropic's default cache prices. */
export const turnCost = (u: TurnUsage): string => costOf({
  inputTokens: u.input_tokens, cacheReadInputTokens: u.cache_read_input_tokens, cacheWrite5mInputTokens: u.ephemeral_5m_input_tokens,
  cacheWrite1hInputTokens: u.ephemeral_1h_input_tokens, outputTokens: u.output_tokens,
}, { input: 300, output: 1500, cacheRead: 30, cacheWrite5m: 375, cacheWrite1h: 600 });

/** A host app with the gateway mounted, recording what reached it. */
async function mountedGateway(upstream: AnthropicAgentFake): Promise<{ url: string; store: MemoryStore; seen: Array<{ headers: http.IncomingHttpHeaders; url: string }>; close(): Promise<void> }> {
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

export function claudeCodeFileTask(release: string): void {
  describe(`Claude Code (${release}) through a mounted router to an Anthropic upstream`, () => {
    let upstream: AnthropicAgentFake;
    const dirs = tempDirs();
    beforeAll(async () => { upstream = await startAnthropicAgent(); });
    afterAll(() => upstream.close());

    it('writes the file, its requests reach the upstream as sent, and each call is charged its exact cache-aware cost', async () => {
      const gw = await mountedGateway(upstream);
      try {
        const { key, id } = addCaller(gw.store, { balance: 1_000 });
        const cwd = await dirs.make();
        const run = await runClaude({ baseURL: gw.url, apiKey: key, prompt: 'Create agent-output.txt', model: MODEL, cwd, release });
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
}

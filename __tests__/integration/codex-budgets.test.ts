/**
 * The real Codex CLI under a per-session cap: the session is the thread Codex names (its `session-id` header); once the session
 * has used what it may, the next turn gets 429 `insufficient_quota` and Codex stops with its quota message, never retrying.
 */
import express from 'express';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { anthropicAdapter, createGatewayRouter, MemoryStore } from '../../lib';
import { hashKey } from '../../lib/stores/hash';
import { runCodex } from '../helpers/codex';
import { EXEC, taskPrompt } from '../helpers/codex-tasks';
import { startCodexAnthropic, type CodexAnthropicFake } from '../helpers/fake-codex-anthropic';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { listen, tempDirs } from '../helpers/local';

let upstream: CodexAnthropicFake;
const dirs = tempDirs('codex-budget-');
beforeAll(async () => { upstream = await startCodexAnthropic(); });
afterAll(() => upstream.close());

it('a session allowed one request: the first turn runs its command, the second is refused with insufficient_quota; Codex stops, one request each', async () => {
  const store = new MemoryStore();
  const router = createGatewayRouter({ store, models: [{ id: 'codex-claude', capability: 'llm', agentReady: true, upstream: anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY }), pricing: { input: 300, output: 1500 } }] });
  const posts: string[] = [];
  const app = express();
  app.use((req, _res, next) => { if (req.path === '/v1/responses') posts.push(req.method); next(); });
  app.use(router);
  const server = await listen(app);
  try {
    const secret = 'sk-codex-budget-0123456789abcdef';
    const record = store.createKey({ keyHash: hashKey(secret), prefix: 'sk-codex', callerId: 'codex-team', budget: {
      amount: null, period: 'day', timeZone: 'UTC', requests: null, tokens: null, perSubagent: null,
      perSession: { amount: null, period: 'day', timeZone: 'UTC', requests: 1, tokens: null },
    } });
    store.credit({ callerId: 'codex-team', amount: 100_000, idempotencyKey: 'open-codex-team' });
    const cwd = await dirs.make();
    const run = await runCodex({ baseURL: server.url, apiKey: secret, prompt: taskPrompt('exec'), model: 'codex-claude', cwd });
    expect(run.code).toBe(1);
    expect(run.failures).toEqual(expect.arrayContaining([expect.stringMatching(/^Quota exceeded/)]));
    expect(await readFile(path.join(cwd, EXEC.file), 'utf8')).toBe(EXEC.output); // the first turn's command ran
    expect(posts).toEqual(['POST', 'POST']); // the refused turn was not sent again
    expect(upstream.turns.map((t) => t.turn)).toEqual(['tool']);
    const log = store.getLog().filter((e) => e.endpoint === 'responses');
    expect(log.map((e) => [e.status, e.errorCode, e.sessionSource])).toEqual([[200, null, 'session-id'], [429, 'billing_error', 'session-id']]);
    expect(store.budgetUsage({ prefix: `session:key:${record.keyId}/` }).items).toEqual([expect.objectContaining({ scope: `session:key:${record.keyId}/${log[0]?.sessionId}`, requests: 1, requestsHeld: 0 })]);
  } finally {
    await server.close();
    await router.close();
  }
});

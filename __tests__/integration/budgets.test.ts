/**
 * Budgets over real HTTP on both stores: a session template and a key cap hold each request's bound,
 * a full budget gets each client's non-retried refusal naming only itself, the log names the
 * session, an upstream that confirms more than the bound is charged and flagged with the budget
 * stopped at its cap, server tools are refused under a budget, and run keys are minted, capped,
 * rolled up to their parent and ended by the clock.
 */
import express from 'express';
import { anthropicAdapter, createAdminRouter, createGatewayRouter, type GatewayRouter, type MemoryStore, type PostgresStore } from '../../lib';
import { checkAgainstDocument } from '../helpers/admin-document';
import type { BudgetLimits } from '../../lib/schemas/budgets';
import { startUsageFake } from '../helpers/fake-usage';
import { UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';
import { listen } from '../helpers/local';
import { BOTH_STORES } from '../helpers/services';

jest.setTimeout(30_000);
let upstream: GatedFake;
beforeAll(async () => { upstream = await startUsageFake(); });
afterAll(() => upstream.close());

const cap = (amount: number | null, more: Partial<BudgetLimits> = {}): BudgetLimits =>
  ({ amount, period: 'day', timeZone: 'UTC', requests: null, tokens: null, perSession: null, perSubagent: null, ...more });
/** One unit per token: a request's bound is a few thousand units, its cost what the fake confirms. */
const PRICING = { input: 1_000_000, output: 1_000_000 };
/** A day in the future: the test's clock runs ahead of the stores' own (which end keys by real time too). */
const NOW = Date.parse('2030-01-15T10:00:00Z');
const ADMIN = 'budgets-admin-token-0123456789';

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let store: MemoryStore | PostgresStore;
  let drop: () => Promise<void>;
  let router: GatewayRouter;
  let url: string;
  let close: () => Promise<void>;
  let now = NOW;
  const adapter = () => anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY });

  beforeAll(async () => {
    ({ store, drop } = await make());
    router = createGatewayRouter({
      store,
      budgets: { clock: () => now },
      models: [
        { id: 'costly', capability: 'llm', upstream: adapter(), upstreamModel: 'usage-1000-100', pricing: PRICING },
        { id: 'over', capability: 'llm', upstream: adapter(), upstreamModel: 'usage-5000000-1', pricing: PRICING },
        { id: 'agent', capability: 'llm', upstream: adapter(), upstreamModel: 'usage-10-10', pricing: PRICING, agentReady: true },
      ],
    });
    const app = express();
    app.use('/admin', createAdminRouter({ store, models: router.models, tokens: [{ name: 'ops', token: ADMIN, access: 'write' }], dashboard: false }));
    app.use(router);
    ({ url, close } = await listen(app));
  });
  afterAll(async () => {
    await close();
    await router.close();
    await drop();
  });
  beforeEach(() => { now = NOW; });

  /** A key with a budget (and optionally a run-key grant) on a new account with a large balance. */
  async function keyWith(budget: BudgetLimits | null, runKeys: { maxAmount: number; maxTtlSeconds: number } | null = null): Promise<{ secret: string; keyId: string; callerId: string }> {
    const callerId = `c_${Math.random().toString(36).slice(2, 10)}`;
    const secret = `sk-budget-${callerId}-0123456789`;
    const { hashKey } = await import('../../lib/stores/hash');
    const record = await store.createKey({ keyHash: hashKey(secret), prefix: 'sk-budget', callerId, budget, runKeys });
    await store.credit({ callerId, amount: 100_000_000, idempotencyKey: `open-${callerId}` });
    return { secret, keyId: record.keyId, callerId };
  }

  const messages = (key: string, model: string, headers: Record<string, string> = {}, body: object = {}) => fetch(`${url}/v1/messages`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  const chat = (key: string, model: string, headers: Record<string, string> = {}) => fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const usageOf = async (scope: string, period = 'd:2030-01-15') => (await store.budgetUsage({ scope, period })).items[0];
  const settled = async (callerId: string): Promise<void> => {
    for (let i = 0; i < 100 && (await store.getAccount(callerId)).held !== 0; i++) await new Promise((r) => setTimeout(r, 20));
  };
  /** The caller's log entries, oldest first, once `n` are written. */
  const logged = async (callerId: string, n: number) => {
    for (let i = 0; i < 100; i++) {
      const items = (await store.listRequests({ callerId })).items;
      if (items.length >= n) return items.reverse();
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('log entries missing');
  };

  it('a full session budget gets the empty balance\'s refusal: 402 billing_error (429 insufficient_quota on OpenAI routes), never retried, naming the session and its reset only', async () => {
    const session = { amount: 5000, period: 'day' as const, timeZone: 'Europe/Paris', requests: null, tokens: null };
    const { secret, keyId, callerId } = await keyWith(cap(1_000_000, { perSession: session }));
    const calls = upstream.calls;
    const first = await messages(secret, 'costly', { 'x-claude-code-session-id': 'sess-a' });
    expect(first.status).toBe(200);
    await first.text();
    await settled(callerId);
    expect(await usageOf(`session:key:${keyId}/sess-a`)).toMatchObject({ spent: 1100, held: 0, requests: 1 });
    const refused = await messages(secret, 'costly', { 'x-claude-code-session-id': 'sess-a' });
    expect(refused.status).toBe(402);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    const body = await refused.json() as { type: string; error: { type: string; message: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'billing_error' } });
    expect(body.error.message).toMatch(new RegExp(`^Budget exhausted: the daily session budget "session:key:${keyId}/sess-a": this request may cost up to \\d+; 3900 left; it resets at 2030-01-16T00:00:00\\+01:00 \\(Europe/Paris\\)\\.$`));
    expect(body.error.message).not.toMatch(/1000000|key:key_[0-9a-f]+"/); // nothing of the key's own budget
    const openai = await chat(secret, 'costly', { 'x-session-id': 'sess-a' });
    expect([openai.status, openai.headers.get('x-should-retry')]).toEqual([429, 'false']);
    expect(await openai.json()).toMatchObject({ error: { type: 'insufficient_quota', code: 'insufficient_quota', message: expect.stringMatching(/session budget "session:key:key_[0-9a-f]+\/sess-a"/) } });
    expect(upstream.calls).toBe(calls + 1); // refused before any upstream call
    // Another session of the same key is a fresh scope; the key's own budget counts both.
    const other = await messages(secret, 'costly', { 'x-claude-code-session-id': 'sess-b' });
    expect(other.status).toBe(200);
    await other.text();
    await settled(callerId);
    expect(await usageOf(`key:${keyId}`)).toMatchObject({ spent: 2200, held: 0, requests: 2 });
  });

  it('the request log names the key, the session and where its id was read, and the subagent', async () => {
    const { secret, keyId, callerId } = await keyWith(null);
    const sent = [
      [{ 'x-claude-code-session-id': 'cc-1', 'x-claude-code-agent-id': 'agent-7' }, 'cc-1', 'x-claude-code-session-id', 'agent-7'],
      [{ 'session-id': 'thread-9' }, 'thread-9', 'session-id', undefined],
      [{}, undefined, undefined, undefined],
    ] as const;
    for (const [headers] of sent) await (await messages(secret, 'costly', headers)).text();
    await (await chat(secret, 'costly', {})).text();
    const entries = await logged(callerId, 4);
    expect(entries.map((e) => [e.keyId, e.sessionId, e.sessionSource, e.agentId])).toEqual([
      ...sent.map(([, id, source, agent]) => [keyId, id, source, agent]), [keyId, undefined, undefined, undefined],
    ]);
  });

  it('an upstream that confirms more than the bound is charged as confirmed and flagged for review; the budget stops at its cap, the rest kept as excess', async () => {
    const { secret, keyId, callerId } = await keyWith(cap(10_000));
    const res = await messages(secret, 'over');
    expect(res.status).toBe(200);
    await res.text();
    await settled(callerId);
    expect(await usageOf(`key:${keyId}`)).toMatchObject({ spent: 10_000, held: 0, excess: 5_000_001 - 10_000 });
    expect(await store.getAccount(callerId)).toMatchObject({ balance: 100_000_000 - 5_000_001, held: 0, ledger: 100_000_000 - 5_000_001 });
    const reviews = (await store.listReviews({ callerId })).items;
    expect(reviews).toEqual([expect.objectContaining({ charge: 5_000_001 })]);
    const [entry] = await logged(callerId, 1);
    expect(entry).toMatchObject({ billingStatus: 'needs_review', charge: 5_000_001, detail: expect.stringMatching(/exceeds the budget bound \d+ held for it/) });
    // The cap holds from then on: the next request is refused.
    expect((await messages(secret, 'costly')).status).toBe(402);
  });

  it('under a budget, web search is bounded (max_uses lowered to budgets.maxSearches) and code execution or MCP servers refused (400 naming the field) before any upstream call', async () => {
    const { secret } = await keyWith(cap(1_000_000));
    const calls = upstream.calls;
    const code = await messages(secret, 'agent', {}, { tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] });
    expect(code.status).toBe(400);
    expect(await code.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringMatching(/^tools\.0\.type: not available under a budget/) } });
    expect((await messages(secret, 'agent', {}, { mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'x' }] })).status).toBe(400);
    expect(upstream.calls).toBe(calls);
    const search = await messages(secret, 'agent', {}, { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] });
    expect(search.status).toBe(200);
    expect(upstream.received.at(-1)?.body.tools).toEqual([expect.objectContaining({ type: 'web_search_20250305', name: 'web_search', max_uses: 1 })]);
    const free = await keyWith(null);
    expect((await messages(free.secret, 'agent', {}, { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] })).status).toBe(200);
    expect(upstream.received.at(-1)?.body.tools).toEqual([expect.objectContaining({ type: 'web_search_20250305', name: 'web_search', max_uses: 5 })]); // no budget, as sent
  });

  it('run keys: a key with the grant mints one; its cap refuses like a budget and never resets, its spend rolls up to the parent, and it ends at its lifetime', async () => {
    const parent = await keyWith(cap(1_000_000), { maxAmount: 5000, maxTtlSeconds: 600 });
    const mint = (key: string, body: object) => fetch(`${url}/v1/keys/run`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await mint(parent.secret, { amount: 5001, ttlSeconds: 60 })).status).toBe(403);
    expect((await mint(parent.secret, { amount: 5000, ttlSeconds: 601 })).status).toBe(403);
    expect(await (await mint(parent.secret, { amount: 5000 })).json()).toMatchObject({ error: { type: 'invalid_request_error', message: 'ttlSeconds: Field required' } });
    const minted = await mint(parent.secret, { amount: 5000, ttlSeconds: 60, models: ['costly'] });
    expect(minted.status).toBe(201);
    const run = await minted.json() as { key: string; record: { keyId: string; parentKeyId: string; expiresAt: number } };
    expect(run.record).toMatchObject({ parentKeyId: parent.keyId, expiresAt: NOW + 60_000, models: ['costly'] });
    expect((await mint(run.key, { amount: 1, ttlSeconds: 1 })).status).toBe(403); // a run key mints none
    expect((await mint((await keyWith(null)).secret, { amount: 1, ttlSeconds: 1 })).status).toBe(403); // no grant
    expect((await messages(run.key, 'over')).status).toBe(404); // outside its models
    const ok = await messages(run.key, 'costly');
    expect(ok.status).toBe(200);
    await ok.text();
    await settled(parent.callerId);
    expect(await usageOf(`run:${run.record.keyId}`, 'total')).toMatchObject({ spent: 1100 });
    expect(await usageOf(`key:${parent.keyId}`)).toMatchObject({ spent: 1100 });
    const spent = await messages(run.key, 'costly');
    expect(spent.status).toBe(402);
    expect((await spent.json() as { error: { message: string } }).error.message).toMatch(/^Budget exhausted: the total run key budget "run:key_[0-9a-f]+": this request may cost up to \d+; 3900 left; it does not reset\.$/);
    now = NOW + 60_000; // its end
    const ended = await messages(run.key, 'costly');
    expect(ended.status).toBe(401);
    expect(await ended.json()).toMatchObject({ error: { type: 'authentication_error', message: `invalid x-api-key: the key expired at ${new Date(NOW + 60_000).toISOString()}` } });
    expect((await messages(parent.secret, 'costly')).status).toBe(200);
  });

  it('a budgeted request never fails open: a store that cannot hold answers 500 even with failOpen', async () => {
    const { secret } = await keyWith(cap(1_000_000));
    const failing = Object.create(store, { reserve: { value: () => Promise.reject(new Error('store down')) } }) as typeof store;
    const open = createGatewayRouter({ store: failing, failOpen: true, models: [{ id: 'costly', capability: 'llm', upstream: adapter(), upstreamModel: 'usage-1-1', pricing: PRICING }] });
    const server = await listen(express().use(open));
    try {
      const res = await fetch(`${server.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ model: 'costly', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }) });
      expect(res.status).toBe(500);
    } finally {
      await server.close();
      await open.close();
    }
  });

  it('the admin API: budgets of organisations and accounts, membership, a key\'s budget, usage and a run key, each answer as documented and every write audited', async () => {
    const admin = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}/admin${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const parsed = await res.json() as Record<string, unknown>;
      checkAgainstDocument(method, path.split('?')[0] as string, res.status, parsed);
      return { status: res.status, body: parsed };
    };
    const created = await admin('POST', '/keys', { callerId: 'c_admin_budget', budget: { amount: 20_000, period: 'day', perSession: { amount: 10_000, period: 'day', timeZone: 'Europe/Paris' } }, runKeys: { maxAmount: 100, maxTtlSeconds: 60 } });
    expect(created.status).toBe(201);
    const keyId = (created.body.record as { keyId: string }).keyId;
    expect(created.body.record).toMatchObject({ budget: cap(20_000, { perSession: { amount: 10_000, period: 'day', timeZone: 'Europe/Paris', requests: null, tokens: null } }), runKeys: { maxAmount: 100, maxTtlSeconds: 60 }, parentKeyId: null });
    expect((await admin('PUT', '/budgets/org:admin-org', { amount: 100_000, period: 'month', timeZone: 'Mars/Olympus' })).body).toMatchObject({ error: { message: 'body.timeZone: "Mars/Olympus" is not an IANA time zone (e.g. "UTC", "Europe/Paris")' } });
    expect((await admin('PUT', '/budgets/session:x', { amount: 1, period: 'day' })).status).toBe(400);
    expect((await admin('PUT', '/budgets/org:admin-org', { amount: 100_000, period: 'month' })).body).toMatchObject({ scope: 'org:admin-org', limits: cap(100_000, { period: 'month' }) });
    expect((await admin('PUT', '/accounts/c_admin_budget/organization', { orgId: 'admin-org' })).body).toEqual({ callerId: 'c_admin_budget', orgId: 'admin-org' });
    expect((await admin('PUT', '/accounts/c_nobody/organization', { orgId: 'admin-org' })).status).toBe(404);
    expect((await admin('GET', '/accounts/c_admin_budget/organization')).body).toEqual({ callerId: 'c_admin_budget', orgId: 'admin-org' });
    // The key's budget, and the organisation's, hold a request; their usage reads back.
    const secret = (created.body as { key: string }).key;
    await store.credit({ callerId: 'c_admin_budget', amount: 1_000_000, idempotencyKey: 'open-admin-budget' });
    const sent = await messages(secret, 'costly', { 'x-session-id': 'adm-1' });
    expect(sent.status).toBe(200);
    await sent.text();
    await settled('c_admin_budget');
    const position = await admin('GET', `/budgets/key:${keyId}?at=${NOW}`);
    expect(position.body).toMatchObject({ scope: `key:${keyId}`, period: { key: 'd:2030-01-15', start: Date.parse('2030-01-15T00:00:00Z'), end: Date.parse('2030-01-16T00:00:00Z') }, usage: { spent: 1100, held: 0 }, left: 18_900 });
    expect((await admin('GET', `/budgets/org:admin-org?at=${NOW}`)).body).toMatchObject({ period: { key: 'm:2030-01' }, usage: { spent: 1100 }, left: 100_000 - 1100 });
    expect((await admin('GET', `/budget-usage?prefix=${encodeURIComponent(`session:key:${keyId}/`)}`)).body).toMatchObject({ items: [{ scope: `session:key:${keyId}/adm-1`, period: 'd:2030-01-15', spent: 1100 }], next: null });
    expect((await admin('GET', '/budgets/account:c_admin_budget')).status).toBe(404);
    // An operator's run key: no grant needed, the schema's bounds only.
    const run = await admin('POST', `/keys/${keyId}/run-keys`, { amount: 100_000, ttlSeconds: 3600 });
    expect(run).toMatchObject({ status: 201, body: { record: { parentKeyId: keyId, budget: { amount: 100_000, period: 'total' } } } });
    expect((await admin('GET', `/budgets/run:${(run.body.record as { keyId: string }).keyId}`)).body).toMatchObject({ period: { key: 'total', end: null }, left: 100_000 });
    expect((await admin('DELETE', '/budgets/org:admin-org')).body).toMatchObject({ scope: 'org:admin-org' });
    expect((await admin('DELETE', '/budgets/org:admin-org')).status).toBe(404);
    const audit = (await store.listAudit({ limit: 1000 })).items.map((e) => e.action);
    expect(audit).toEqual(expect.arrayContaining(['key.create', 'budget.put', 'account.organization', 'key.mint_run', 'budget.delete']));
  });
});

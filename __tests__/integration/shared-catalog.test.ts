/** Runtime catalog edits kept by the store: two gateways on one PostgreSQL schema (each its own pool and store) bill alike within the stated bound, after a restart and a reload too; both ways audited. */
import express from 'express';
import type { Pool } from 'pg';
import { anthropicAdapter, createAdminRouter, createGatewayRouter, MemoryStore, PostgresStore, type GatewayRouter, type ModelEntry, type SettledRecord } from '../../lib';
import { OVERRIDE_MAX_AGE_MS } from '../../lib/catalog/follow';
import { checkAgainstDocument } from '../helpers/admin-document';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { listen } from '../helpers/local';
import { pgPool, pgStore } from '../helpers/services';

jest.setTimeout(60_000);
const TOKENS = [{ name: 'ops', token: 'shared-catalog-ops-0123456789', access: 'write' as const }, { name: 'ops-b', token: 'shared-catalog-opsb-0123456789', access: 'write' as const }];
const FILE_PRICE = { input: 1_000_000, output: 2_000_000 }; // claude-json: 25 input + 15 output tokens = 55
const EDITED_PRICE = { input: 2_000_000, output: 2_000_000 }; // = 80
let upstream: FakeServer;
let made: Awaited<ReturnType<typeof pgStore>>;
let poolB: Pool;
let storeB: PostgresStore;
const running: Array<{ close(): Promise<void> }> = [];

/** The configured catalog, built afresh as each process would build it from its file. */
const configured = (ids = ['claude-json', 'claude-stream']): ModelEntry[] => {
  const anthropic = anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY });
  return ids.map((id) => ({ id, capability: 'llm' as const, upstream: anthropic, pricing: FILE_PRICE }));
};

interface Instance { url: string; router: GatewayRouter; settled: Map<string, SettledRecord> }
/** A gateway and its admin API on one port, on `store`. */
async function instance(store: PostgresStore | MemoryStore, token = TOKENS[0]?.token as string, models = configured()): Promise<Instance & { admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const settled = new Map<string, SettledRecord>();
  const router = createGatewayRouter({ store, models, onSettled: (r) => { settled.set(r.entry.requestId, r); } });
  const app = express();
  app.use('/admin', createAdminRouter({ store, models: router.models, tokens: TOKENS }));
  app.use(router);
  const server = await listen(app);
  running.push({ close: async () => { await server.close(); await router.close(); } });
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/admin${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = await res.json() as unknown;
    checkAgainstDocument(method, path.split('?')[0] as string, res.status, parsed);
    return { status: res.status, body: parsed as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  return { url: server.url, router, settled, admin };
}

/** One request; resolves with the charge it was settled with (waiting on the settlement itself). */
async function charge(at: Instance, key: string): Promise<number> {
  const res = await fetch(`${at.url}/v1/messages`, {
    method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-json', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
  });
  await res.text();
  expect(res.status).toBe(200);
  const id = res.headers.get('request-id') as string;
  for (let i = 0; i < 500 && !at.settled.has(id); i++) await new Promise((r) => setTimeout(r, 5));
  return at.settled.get(id)?.entry.charge ?? Number.NaN;
}

/**
 * Requests through `at`, one after another, from before `change` until two have started
 * OVERRIDE_MAX_AGE_MS after it ended: each with its start, end and charge.
 */
async function trafficAround(at: Instance, key: string, change: () => Promise<void>): Promise<{ calls: Array<{ start: number; end: number; charge: number }>; began: number; ended: number }> {
  const calls: Array<{ start: number; end: number; charge: number }> = [];
  let ended = Infinity;
  let began = 0;
  const loop = (async () => {
    while (calls.filter((c) => c.start >= ended + OVERRIDE_MAX_AGE_MS).length < 2) {
      const start = Date.now();
      const amount = await charge(at, key);
      calls.push({ start, end: Date.now(), charge: amount });
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  while (calls.length < 2) await new Promise((r) => setTimeout(r, 10));
  began = Date.now();
  await change();
  ended = Date.now();
  await loop;
  return { calls, began, ended };
}

/** What the bound promises: calls over before the change see the old price, those starting the bound after it the new, and no call goes back. */
function expectBound(t: Awaited<ReturnType<typeof trafficAround>>, from: number, to: number): void {
  expect(t.calls.filter((c) => c.end < t.began).map((c) => c.charge)).toEqual(t.calls.filter((c) => c.end < t.began).map(() => from));
  const late = t.calls.filter((c) => c.start >= t.ended + OVERRIDE_MAX_AGE_MS);
  expect(late.length).toBeGreaterThanOrEqual(2);
  expect(late.map((c) => c.charge)).toEqual(late.map(() => to));
  const first = t.calls.findIndex((c) => c.charge === to);
  expect(t.calls.slice(first).map((c) => c.charge)).toEqual(t.calls.slice(first).map(() => to));
}

const withPrice = (models: Array<Record<string, unknown>>, id: string, pricing: object) => models.map((m) => (m.id === id ? { ...m, pricing } : m));

beforeAll(async () => {
  upstream = await startAnthropicFake();
  made = await pgStore();
  poolB = await pgPool();
  storeB = new PostgresStore({ pool: poolB, schema: made.schema, keyCacheMs: 0, sweepIntervalMs: 0 });
  await made.store.addKey('sk-shared-catalog-0123456789abcdef', { id: 'acme' });
  await made.store.credit({ callerId: 'acme', amount: 100_000_000, idempotencyKey: 'acme-open' });
});
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
  await storeB.close();
  await poolB.end();
  await made.drop();
  await upstream.close();
});
const KEY = 'sk-shared-catalog-0123456789abcdef';

it('an edit on A bills on B for every request starting within the bound after it; a revert on B brings both back to the configured price; each is audited', async () => {
  const a = await instance(made.store);
  const b = await instance(storeB, TOKENS[1]?.token);
  expect([await charge(a, KEY), await charge(b, KEY)]).toEqual([55, 55]);
  const models = (await a.admin('GET', '/models')).body.items as Array<Record<string, unknown>>;

  const edit = await trafficAround(b, KEY, async () => {
    expect((await a.admin('PUT', '/models', { models: withPrice(models, 'claude-json', EDITED_PRICE) })).status).toBe(200);
  });
  expectBound(edit, 55, 80);
  expect(await charge(a, KEY)).toBe(80); // the instance written through serves it at once
  const shown = (await b.admin('GET', '/models')).body.items.find((m: { id: string }) => m.id === 'claude-json');
  expect(shown).toMatchObject({ pricing: EDITED_PRICE, override: { kind: 'edit', fields: { pricing: EDITED_PRICE }, configured: { pricing: FILE_PRICE }, actor: 'ops', inUse: true } });

  const revert = await trafficAround(a, KEY, async () => {
    const reverted = await b.admin('DELETE', '/models/claude-json/override');
    expect(reverted).toMatchObject({ status: 200, body: { reverted: { kind: 'edit' }, model: { id: 'claude-json', pricing: FILE_PRICE, override: null } } });
  });
  expectBound(revert, 80, 55);
  expect(await charge(b, KEY)).toBe(55);
  expect((await b.admin('DELETE', '/models/claude-json/override'))).toMatchObject({ status: 404, body: { error: { type: 'not_found_error' } } });

  const trail = (await a.admin('GET', '/audit?target=models')).body.items as Array<{ action: string; actor: string; before: any; after: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(trail.map((e) => [e.action, e.actor])).toEqual([['models.revert', 'ops-b'], ['models.replace', 'ops']]);
  expect(trail[1]?.before.find((m: { id: string }) => m.id === 'claude-json').pricing).toEqual(FILE_PRICE);
  expect(trail[1]?.after.find((m: { id: string }) => m.id === 'claude-json').pricing).toEqual(EDITED_PRICE);
  expect(trail[0]?.before).toMatchObject({ model: { pricing: EDITED_PRICE }, override: { kind: 'edit', actor: 'ops' } });
  expect(trail[0]?.after).toMatchObject({ model: { pricing: FILE_PRICE, override: null }, override: null });
});

it('a restart (a new router on the store) and a reload (a replaced list) keep the edit; a model the configuration drops takes its override out of use', async () => {
  const a = await instance(made.store);
  const models = (await a.admin('GET', '/models')).body.items as Array<Record<string, unknown>>;
  await a.admin('PUT', '/models', { models: withPrice(models, 'claude-json', EDITED_PRICE) });
  const restarted = await instance(storeB);
  expect(await charge(restarted, KEY)).toBe(80); // its first request waits for the overrides
  restarted.router.models.replace(configured());
  expect(await charge(restarted, KEY)).toBe(80);
  restarted.router.models.replace(configured(['claude-stream']));
  expect((await restarted.admin('GET', '/models/overrides')).body.items).toEqual([
    expect.objectContaining({ model: 'claude-json', kind: 'edit', inUse: false, reason: 'the configuration no longer lists this model' }),
  ]);
  restarted.router.models.replace(configured());
  expect(await charge(restarted, KEY)).toBe(80);
  expect((await restarted.admin('DELETE', '/models/claude-json/override')).status).toBe(200);
  expect(await charge(restarted, KEY)).toBe(55);
});

it("a model's names edited on A (an alias, a pattern) are answered on B within the bound, and reverted", async () => {
  const a = await instance(made.store);
  const b = await instance(storeB);
  const ask = async (at: Instance, model: string): Promise<[number, unknown]> => {
    const res = await fetch(`${at.url}/v1/messages`, {
      method: 'POST', headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    return [res.status, ((await res.json()) as { model?: unknown }).model];
  };
  expect((await ask(b, 'claude-json-2026'))[0]).toBe(404);
  const models = (await a.admin('GET', '/models')).body.items as Array<Record<string, unknown>>;
  const named = models.map((m) => (m.id === 'claude-json' ? { ...m, aliases: ['claude-json-2026'], patterns: ['claude-json-v*'] } : m));
  expect((await a.admin('PUT', '/models', { models: named })).status).toBe(200);
  await new Promise((r) => setTimeout(r, OVERRIDE_MAX_AGE_MS));
  expect([await ask(b, 'claude-json-2026'), await ask(b, 'claude-json-v9')]).toEqual([[200, 'claude-json-2026'], [200, 'claude-json-v9']]);
  expect((await b.admin('GET', '/models')).body.items[0]).toMatchObject({ id: 'claude-json', aliases: ['claude-json-2026'], patterns: ['claude-json-v*'], override: { fields: { aliases: ['claude-json-2026'], patterns: ['claude-json-v*'] } } });
  expect((await b.admin('DELETE', '/models/claude-json/override')).status).toBe(200);
  expect((await ask(a, 'claude-json-2026'))[0]).toBe(404);
});

it('models added and withdrawn at runtime are shared too; a store without the role keeps the edit on its instance only, as before', async () => {
  const a = await instance(made.store);
  const b = await instance(storeB);
  const models = (await a.admin('GET', '/models')).body.items as Array<Record<string, unknown>>;
  const next = [{ ...models[0], id: 'claude-extra', upstreamModel: 'claude-json', override: null }, ...models.filter((m) => m.id !== 'claude-stream')];
  expect((await a.admin('PUT', '/models', { models: next })).status).toBe(200);
  expect((await b.admin('GET', '/models')).body.items.map((m: { id: string; override: { kind: string } | null }) => [m.id, m.override?.kind ?? null]))
    .toEqual([['claude-json', null], ['claude-extra', 'add']]);
  expect((await b.admin('GET', '/models/overrides')).body.items.map((o: { model: string; kind: string; inUse: boolean }) => [o.model, o.kind, o.inUse]).sort())
    .toEqual([['claude-extra', 'add', true], ['claude-stream', 'remove', true]]);
  expect((await a.admin('PUT', '/models', { models })).status).toBe(200);
  expect((await b.admin('GET', '/models/overrides')).body.items).toEqual([]);

  // Without a catalogOverrides role (a host's own store): PUT swaps this instance's catalog only; nothing to list or revert.
  const memory = new MemoryStore();
  const bare = new Proxy(memory, { get: (target, p) => (p === 'catalogOverrides' ? undefined : Reflect.get(target, p)) });
  memory.addKey(KEY, { id: 'acme' });
  memory.credit({ callerId: 'acme', amount: 1000, idempotencyKey: 'open' });
  const solo = await instance(bare);
  const soloModels = (await solo.admin('GET', '/models')).body.items as Array<Record<string, unknown>>;
  expect((await solo.admin('PUT', '/models', { models: withPrice(soloModels, 'claude-json', EDITED_PRICE) })).body.models[0]).toMatchObject({ pricing: EDITED_PRICE, override: null });
  expect(await charge(solo, KEY)).toBe(80);
  expect((await solo.admin('GET', '/models/overrides')).body).toEqual({ items: [], next: null });
  expect((await solo.admin('DELETE', '/models/claude-json/override')).status).toBe(404);
  expect(await charge(await instance(bare), KEY)).toBe(55); // another router on it: the configured price

  // MemoryStore keeps them for the process: a new router on it (the binary's reload) serves the edit.
  const kept = await instance(memory);
  await kept.admin('PUT', '/models', { models: withPrice(soloModels, 'claude-json', EDITED_PRICE) });
  expect(await charge(await instance(memory), KEY)).toBe(80);
});

it('a store that cannot be read: a first request is refused (500, never priced by a catalog it could not check), and serves once it can be read', async () => {
  const memory = new MemoryStore();
  memory.addKey(KEY, { id: 'acme' });
  memory.credit({ callerId: 'acme', amount: 1000, idempotencyKey: 'open' });
  let down = true;
  const role = memory.catalogOverrides;
  const flaky = {
    catalogVersion: () => (down ? Promise.reject(new Error('store down')) : role.catalogVersion()),
    listCatalogOverrides: () => (down ? Promise.reject(new Error('store down')) : role.listCatalogOverrides()),
    changeCatalogOverrides: (changes: Parameters<typeof role.changeCatalogOverrides>[0]) => role.changeCatalogOverrides(changes),
  };
  const store = new Proxy(memory, { get: (target, p) => (p === 'catalogOverrides' ? flaky : Reflect.get(target, p)) });
  const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const solo = await instance(store);
    const res = await fetch(`${solo.url}/v1/messages`, {
      method: 'POST', headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-json', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect([res.status, ((await res.json()) as { error: { type: string } }).error.type]).toEqual([500, 'api_error']);
    expect(errors.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(/^model-gateway: catalog overrides could not be read; .*store down$/)]);
    down = false;
    expect(await charge(solo, KEY)).toBe(55);
  } finally {
    errors.mockRestore();
  }
});

/** Billing on confirmed usage: exact bills, partial streams, disconnects, concurrency, the settle hook. */
import http from 'node:http';
import { MemoryStore, type SettledRecord } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startOpenAIFake } from '../helpers/fake-openai';
import { sleep, type FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels, logEntry, postMessages, startGateway, type RunningGateway } from '../helpers/gateway';
import { pgStore } from '../helpers/services';

let anthropic: FakeServer;
let openai: FakeServer;
let gw: RunningGateway;
const settled: SettledRecord[] = [];
let hookMode: 'ok' | 'throw' | 'hang' = 'ok';

// One minor unit per input token and two per output token make bills easy to read.
const PRICE = { input: 1_000_000, output: 2_000_000 };
const NAMES = ['claude-json', 'claude-stream', 'claude-midstream-error', 'claude-slow', 'gpt-json', 'gpt-stream', 'gpt-error-wrapped', 'gpt-slow', 'gpt-nousage', 'claude-status-500'];

beforeAll(async () => {
  anthropic = await startAnthropicFake();
  openai = await startOpenAIFake();
  gw = await startGateway({
    models: llmModels(anthropic.url, openai.url, NAMES).map((m) => ({ ...m, pricing: PRICE })),
    onSettled: (record) => {
      settled.push(record);
      if (hookMode === 'throw') throw new Error('hook failed');
      if (hookMode === 'hang') return new Promise(() => undefined);
      return undefined;
    },
  });
});
afterAll(async () => {
  await gw.close();
  await Promise.all([anthropic.close(), openai.close()]);
});

const BALANCE = 100_000;
async function call(key: string, model: string, stream = false): Promise<{ status: number; requestId: string; text: string }> {
  const res = await postMessages(gw.url, key, model, { stream });
  return { status: res.status, requestId: res.headers.get('request-id') as string, text: await res.text() };
}

describe('the bill is price x confirmed usage, never the estimate', () => {
  // The estimate of every call here is 10 input + 64 output tokens (a hold of 138).
  it.each([
    ['claude-json', false, 25 + 2 * 15],
    ['claude-stream', true, 25 + 2 * 15],
    // 10 of the 30 prompt tokens were cached reads: an OpenAI-format upstream's default read price is half the input price.
    ['gpt-json', false, 20 + 10 / 2 + 2 * 12],
    ['gpt-stream', true, 20 + 10 / 2 + 2 * 12],
  ])('%s (stream: %s) is charged %i', async (model, stream, charge) => {
    const { key, id } = addCaller(gw.store, { balance: BALANCE });
    const res = await call(key, model, stream);
    expect(res.status).toBe(200);
    const entry = await logEntry(gw.store, res.requestId);
    expect(entry).toMatchObject({ charge, billingStatus: 'billed', usage: { provenance: 'confirmed' } });
    expect(gw.store.getBalance(id)).toBe(BALANCE - charge);
    expect(gw.store.held(id)).toBe(0);
    expect(gw.store.getCharge(res.requestId)).toBe(charge);
  });
});

describe('streams that end without their final usage', () => {
  it.each([
    ['claude-midstream-error', 25], // message_start confirmed 25 input; its output figure is a placeholder, never billed
    ['gpt-error-wrapped', 0], // nothing was confirmed before the failure
  ])('%s: charges only the confirmed part (%i), releases the hold, marks needs_review', async (model, charge) => {
    const { key, id } = addCaller(gw.store, { balance: BALANCE });
    const res = await call(key, model, true);
    const entry = await logEntry(gw.store, res.requestId);
    expect(entry).toMatchObject({ charge, billingStatus: 'needs_review' });
    expect(entry.usage?.provenance).toBe(charge > 0 ? 'partial' : 'none');
    expect(gw.store.getBalance(id)).toBe(BALANCE - charge);
    expect(gw.store.held(id)).toBe(0);
    expect(gw.store.getReviews().map((r) => r.requestId)).toContain(res.requestId);
  });

  it.each([['claude-slow', 25], ['gpt-slow', 0]])('a client that disconnects from %s is charged the confirmed part only (%i)', async (model, charge) => {
    const { key, id } = addCaller(gw.store, { balance: BALANCE });
    const requestId = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' } }, (res) => {
        res.once('data', () => { req.destroy(); resolve(res.headers['request-id'] as string); });
      });
      req.on('error', (e) => { if (!req.destroyed) reject(e); });
      req.end(JSON.stringify({ model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello' }] }));
    });
    const entry = await logEntry(gw.store, requestId);
    expect(entry).toMatchObject({ charge, billingStatus: 'needs_review' });
    expect(gw.store.getBalance(id)).toBe(BALANCE - charge);
    expect(gw.store.held(id)).toBe(0);
  });

  it('an upstream answer with no usage is flagged for review, not billed as zero silently', async () => {
    const { key } = addCaller(gw.store, { balance: BALANCE });
    const res = await call(key, 'gpt-nousage');
    expect(await logEntry(gw.store, res.requestId)).toMatchObject({ charge: 0, billingStatus: 'needs_review', usage: { provenance: 'none' } });
  });

  it('an upstream failure before any answer is not billed and leaves no hold', async () => {
    const { key, id } = addCaller(gw.store, { balance: BALANCE });
    const res = await call(key, 'claude-status-500');
    expect(await logEntry(gw.store, res.requestId)).toMatchObject({ charge: 0, billingStatus: 'not_billed' });
    expect(gw.store.getBalance(id)).toBe(BALANCE);
    expect(gw.store.held(id)).toBe(0);
  });
});

describe('admission', () => {
  it('refuses with 402 when the balance cannot cover the estimate, without calling upstream', async () => {
    const { key } = addCaller(gw.store, { balance: 100 }); // hold needed: 138
    const before = anthropic.calls;
    const res = await call(key, 'claude-json');
    expect(res.status).toBe(402);
    expect(JSON.parse(res.text).error.type).toBe('billing_error');
    expect(anthropic.calls).toBe(before);
    expect(await logEntry(gw.store, res.requestId)).toMatchObject({ status: 402, errorCode: 'billing_error', billingStatus: 'not_billed' });
  });

  it('200 concurrent requests against a balance for about 50: no overspend, every cent and log line accounted for', async () => {
    const charge = 25 + 2 * 15;
    const start = 50 * charge;
    const { key, id } = addCaller(gw.store, { balance: start });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => call(key, i % 2 ? 'claude-stream' : 'claude-json', i % 2 === 1)));
    const served = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(served.length + refused.length).toBe(200);
    expect(served.length).toBeGreaterThan(0);
    expect(served.length).toBeLessThanOrEqual(50);
    const entries = await Promise.all(results.map((r) => logEntry(gw.store, r.requestId)));
    const log = gw.store.getLog();
    for (const r of results) expect(log.filter((e) => e.requestId === r.requestId)).toHaveLength(1);
    const charged = entries.reduce((sum, e) => sum + e.charge, 0);
    expect(charged).toBe(served.length * charge);
    expect(gw.store.getBalance(id)).toBe(start - charged);
    expect(gw.store.getBalance(id)).toBeGreaterThanOrEqual(0); // the documented bound: holds >= confirmed cost here
    expect(gw.store.held(id)).toBe(0);
    const ledger = gw.store.getLedger().filter((row) => row.callerId === id).reduce((sum, row) => sum + row.amount, 0);
    expect(ledger).toBe(gw.store.getBalance(id));
  });
});

describe('the settle hook', () => {
  it('sees every settled request, and a hook that throws or hangs changes nothing', async () => {
    for (const mode of ['ok', 'throw', 'hang'] as const) {
      hookMode = mode;
      const { key, id } = addCaller(gw.store, { balance: BALANCE });
      const res = await call(key, 'claude-json');
      expect(res.status).toBe(200);
      await logEntry(gw.store, res.requestId);
      for (let i = 0; i < 1000 && !settled.some((r) => r.settlement.requestId === res.requestId); i++) await sleep(5);
      const record = settled.find((r) => r.settlement.requestId === res.requestId);
      expect(record?.settlement).toMatchObject({ callerId: id, cost: '55', billingStatus: 'billed', model: 'claude-json' });
      expect(record?.entry.charge).toBe(55);
      expect(gw.store.getBalance(id)).toBe(BALANCE - 55);
    }
    hookMode = 'ok';
  });
});

describe("a host route's own work", () => {
  it('is settled and logged on its confirmed usage even when the work it hands to billing fails', async () => {
    const { anthropicAdapter, authenticate, billingHook, gatewayContext, jsonBody, MemoryStore, requestId, reserve, resolveModel } = await import('../../lib');
    const express = (await import('express')).default;
    const store = new MemoryStore();
    const { key, id } = addCaller(store, { balance: BALANCE });
    const models = [{ id: 'host-model', capability: 'llm' as const, upstream: anthropicAdapter({ baseURL: 'http://127.0.0.1:9' }), pricing: PRICE }];
    const app = express();
    app.post('/host', requestId({ endpoint: 'host' }), billingHook({ store }), jsonBody(), authenticate({ store }),
      resolveModel({ models, capability: 'llm' }), reserve({ store }), (_req, res) => {
        const ctx = gatewayContext(res);
        ctx.upstream = 'host-upstream';
        ctx.usage.report({ inputTokens: 7, outputTokens: 3 });
        ctx.usage.complete();
        res.json({ ok: true });
        // Work that fails after the answer went out (a late cleanup, a second write): the money moved all the same.
        ctx.work = Promise.reject(new Error('host work failed after answering'));
        ctx.work.catch(() => undefined);
      });
    const server = await new Promise<http.Server>((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/host`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ model: 'host-model', max_tokens: 10, messages: [] }),
      });
      expect(res.status).toBe(200);
      const requestIdHeader = res.headers.get('request-id') as string;
      const entry = await logEntry(store, requestIdHeader);
      expect(entry).toMatchObject({ status: 200, charge: 7 + 2 * 3, billingStatus: 'billed', upstream: 'host-upstream' });
      expect(store.getCharge(requestIdHeader)).toBe(13);
      expect(store.getAccount(id)).toEqual({ balance: BALANCE - 13, held: 0, carry: '0', ledger: BALANCE - 13 });
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('exact money through the gateway', () => {
  it.each(['MemoryStore', 'PostgresStore'])('%s: 200 calls costing 0.0228 each are charged 4 units in all, and 0.56 is carried', async (kind) => {
    const pg = kind === 'PostgresStore' ? await pgStore() : undefined;
    const store = pg?.store ?? new MemoryStore();
    // 25 input tokens at 312 and 15 output at 1000 per million: 0.0078 + 0.015 = 0.0228 a call.
    const models = llmModels(anthropic.url, openai.url, ['claude-json', 'claude-stream']).map((m) => ({ ...m, pricing: { input: 312, output: '1000.000000' } }));
    const server = await startGateway({ store: store as unknown as MemoryStore, models });
    try {
      await store.addKey('sk-exact', { id: 'exact' });
      await store.credit({ callerId: 'exact', amount: 1000, idempotencyKey: 'exact-opening' });
      const ids: string[] = [];
      for (let wave = 0; wave < 10; wave++) {
        await Promise.all(Array.from({ length: 20 }, async (_, i) => {
          const res = await postMessages(server.url, 'sk-exact', i % 2 ? 'claude-stream' : 'claude-json', { stream: i % 2 === 1 });
          expect(res.status).toBe(200);
          await res.text();
          ids.push(res.headers.get('request-id') as string);
        }));
      }
      await server.router.close({ graceMs: 0 }); // every settle and log write stored
      expect(await store.getAccount('exact')).toEqual({ balance: 996, held: 0, carry: '0.56', ledger: 996 });
      const entries = (await store.listRequests({ callerId: 'exact', limit: 1000 })).items;
      expect(entries).toHaveLength(200);
      expect(entries.every((e) => e.cost === '0.0228' && e.billingStatus === 'billed')).toBe(true);
      expect(entries.reduce((sum, e) => sum + e.charge, 0)).toBe(4);
      expect((await store.spend({ callerId: 'exact', from: Date.now() - 3_600_000, to: Date.now() + 1000 })).items).toEqual([
        expect.objectContaining({ model: 'claude-json', requests: 100, cost: '2.28' }), expect.objectContaining({ model: 'claude-stream', requests: 100, cost: '2.28' }),
      ]);
    } finally {
      await server.close();
      await pg?.drop();
    }
  });
});

/**
 * Two PostgresStore instances (own pools) on one schema, as two gateway processes have them: a
 * request id both settle at once is charged once, and a key changed on one is refused by the
 * other within its keyCacheMs.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { anthropicAdapter, createGatewayRouter, PostgresStore, type Settlement } from '../../lib';
import { hashKey } from '../../lib/stores/hash';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { pgPool, pgStore } from '../helpers/services';
import { usageOf } from '../helpers/usage';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const settlement = (requestId: string, cost: string): Settlement =>
  ({ requestId, callerId: 'racer', model: 'm', endpoint: 'messages', cost, billingStatus: 'billed', usage: usageOf({ inputTokens: 1 }) });

it('one request id settled by two instances at once (both statements read before either commits): applied once, the balance moved once, ledger = balance', async () => {
  const made = await pgStore();
  const pool2 = await pgPool();
  const other = new PostgresStore({ pool: pool2, schema: made.schema, sweepIntervalMs: 0 });
  const gate = await made.pool.connect();
  try {
    await made.store.addKey('sk-racer-0123456789abcdef', { id: 'racer' });
    await made.store.credit({ callerId: 'racer', amount: 1000, idempotencyKey: 'racer-opening' });
    expect(await made.store.reserve({ instanceId: 'a', callerId: 'racer', requestId: 'req_race', amount: 300, expiresAt: Date.now() + 60_000 })).toEqual({ ok: true });
    // A third transaction holds the caller's balance row: both settlement statements take their
    // snapshot and queue behind it, so whichever goes second finds the id settled after its snapshot.
    await gate.query('BEGIN');
    await gate.query(`SELECT 1 FROM ${made.schema}.balances WHERE caller_id = 'racer' FOR UPDATE`);
    const first = made.store.settle(settlement('req_race', '120'));
    const second = Promise.all([other.settle(settlement('req_race', '120')), other.settle(settlement('req_fresh', '30'))]); // one batch
    const waiting = async (): Promise<number> => (await made.pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND query LIKE $1`, [`%FROM ${made.schema}.settlements WHERE request_id IN%`])).rows[0]?.n as number;
    for (let i = 0; i < 500 && (await waiting()) < 2; i++) await sleep(10);
    expect(await waiting()).toBe(2);
    await gate.query('COMMIT');
    const [one, [two, fresh]] = await Promise.all([first, second]);
    expect([one, two].filter((r) => r.applied)).toHaveLength(1);
    expect([one.charge, two.charge]).toEqual([120, 120]);
    expect(fresh).toEqual({ applied: true, charge: 30 });
    expect(await made.store.getAccount('racer')).toEqual({ balance: 850, held: 0, carry: '0', ledger: 850 });
    expect((await made.store.listLedger({ callerId: 'racer' })).items.filter((e) => e.kind === 'charge').map((e) => e.amount).sort()).toEqual([-120, -30]);
  } finally {
    gate.release();
    await other.close();
    await pool2.end();
    await made.drop();
  }
});

it('a key disabled or revoked through one instance is refused by another once its keyCacheMs has passed (401 on real HTTP)', async () => {
  const made = await pgStore(); // the instance the operator changes keys through
  const pool2 = await pgPool();
  const CACHE_MS = 400;
  const serving = new PostgresStore({ pool: pool2, schema: made.schema, sweepIntervalMs: 0, keyCacheMs: CACHE_MS });
  const fake = await startAnthropicFake();
  const app = express().use(createGatewayRouter({ store: serving, models: [{ id: 'claude-json', capability: 'llm', upstream: anthropicAdapter({ baseURL: fake.url }), pricing: { input: 1, output: 1 } }] }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
  const ask = async (key: string): Promise<number> => {
    const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-json', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }) });
    await res.text();
    return res.status;
  };
  try {
    await made.store.credit({ callerId: 'cached', amount: 10_000, idempotencyKey: 'cached-opening', createAccount: true });
    for (const status of ['disabled', 'revoked'] as const) {
      const secret = `sk-cached-${status}-0123456789abcdef`;
      const record = await made.store.createKey({ keyHash: hashKey(secret), prefix: 'sk-cached', callerId: 'cached' });
      expect(await ask(secret)).toBe(200); // looked up and cached by the serving instance, before this answer
      const cachedUntil = Date.now() + CACHE_MS; // at the latest
      await made.store.updateKey(record.keyId, { status });
      await sleep(cachedUntil + 20 - Date.now());
      expect(await ask(secret)).toBe(401);
      expect(await serving.findCaller(hashKey(secret))).toMatchObject({ id: 'cached', disabled: true });
    }
  } finally {
    server.close();
    await fake.close();
    await serving.close();
    await pool2.end();
    await made.drop();
  }
});

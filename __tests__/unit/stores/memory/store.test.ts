/** MemoryStore's bounded records: the last maxRecords kept, at a cost that does not grow with maxRecords. */
import { MemoryStore } from '../../../../lib';
import type { RequestLogEntry } from '../../../../lib';
import { usageOf } from '../../../helpers/usage';

const entry = (i: number): RequestLogEntry => ({
  requestId: `req_${i}`, callerId: 'c', endpoint: 'messages', model: 'm', stream: false, status: 200, errorCode: null, usage: null,
  charge: 0, billingStatus: 'not_billed', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1, ttfbMs: null, upstream: null,
  detail: null, user: null, attempts: [],
} as unknown as RequestLogEntry);

it('keeps exactly the last maxRecords log entries, oldest first', () => {
  const store = new MemoryStore({ maxRecords: 8 });
  for (let i = 0; i < 100; i++) {
    store.appendLog(entry(i));
    expect(store.getLog().map((e) => e.requestId)).toEqual(Array.from({ length: Math.min(8, i + 1) }, (_, k) => `req_${Math.max(0, i - 7) + k}`));
  }
});

it('keeps 10,000 records by default', () => {
  const store = new MemoryStore();
  for (let i = 0; i < 12_000; i++) store.appendLog(entry(i));
  const log = store.getLog();
  expect(log).toHaveLength(10_000);
  expect(log[0]?.requestId).toBe('req_2000');
});

it('logging and settling on full records cost the same whatever maxRecords, and recent settlements stay exactly-once', () => {
  const settle = (store: MemoryStore, i: number, cost = '0') => store.settle({
    requestId: `req_${i}`, callerId: 'c', model: 'm', endpoint: 'messages', cost, billingStatus: 'not_billed',
    usage: usageOf({ provenance: 'none' }),
  });
  const small = { store: new MemoryStore({ maxRecords: 1_000 }), next: 0, ms: [] as number[] };
  const large = { store: new MemoryStore({ maxRecords: 100_000 }), next: 0, ms: [] as number[] };
  const run = (s: typeof small, n: number): number => {
    const started = performance.now();
    for (const end = s.next + n; s.next < end; s.next++) {
      s.store.appendLog(entry(s.next));
      settle(s.store, s.next);
    }
    return performance.now() - started;
  };
  run(small, 120_000); // both full: from here on every append drops an old record
  run(large, 120_000);
  // Chunks of the two stores alternate, so a loaded machine slows both alike; the median drops
  // the chunks where a block of old records goes or the collector runs.
  for (let round = 0; round < 30; round++) {
    small.ms.push(run(small, 3_000));
    large.ms.push(run(large, 3_000));
  }
  const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)] ?? 0;
  // Dropping the oldest record one at a time (a splice of the list, or the first key of a Set or
  // Map, whose deleted slots V8 walks again) makes the large store's chunks 10+ times slower.
  expect(median(large.ms)).toBeLessThan(median(small.ms) * 4 + 5);
  expect(settle(large.store, 209_999, '5')).toEqual({ applied: false, charge: 0 });
  expect(large.store.getLog()).toHaveLength(100_000);
  expect(large.store.getLog()[0]?.requestId).toBe('req_110000');
});

const usage = usageOf({ inputTokens: 1 });

it('a reserve costs the same however many holds its caller has in flight, and expired holds stop counting', () => {
  const store = new MemoryStore();
  store.addKey('sk-many-holds', { id: 'many' });
  store.credit({ callerId: 'many', amount: 1_000_000_000, idempotencyKey: 'opening-many' });
  const now = Date.now();
  const started = performance.now();
  // Walking the caller's live holds on every reserve makes this quadratic: ~20 s for 20,000.
  let admitted = 0;
  for (let i = 0; i < 20_000; i++) if (store.reserve({ instanceId: 'test', callerId: 'many', requestId: `h${i}`, amount: 10, expiresAt: now + 60_000 }).ok) admitted++;
  expect(performance.now() - started).toBeLessThan(5000); // linear: tens of ms; quadratic: about 20 s
  expect(admitted).toBe(20_000);
  expect(store.available('many', now)).toBe(1_000_000_000 - 200_000);
  store.release('h0');
  store.settle({ requestId: 'h1', callerId: 'many', model: 'm', endpoint: 'messages', cost: '7', billingStatus: 'billed', usage });
  expect(store.available('many', now)).toBe(1_000_000_000 - 7 - 199_980);
  expect(store.reserve({ instanceId: 'test', callerId: 'many', requestId: 'soon', amount: 5, expiresAt: now + 10 })).toEqual({ ok: true });
  expect(store.available('many', now + 5)).toBe(1_000_000_000 - 7 - 199_985);
  expect(store.available('many', now + 10)).toBe(1_000_000_000 - 7 - 199_980); // 'soon' expired
  expect(store.available('many', now + 60_000)).toBe(1_000_000_000 - 7); // all expired
  expect(store.getAccount('many')).toEqual({ balance: 1_000_000_000 - 7, held: 0, carry: '0', ledger: 1_000_000_000 - 7 });
});

it('keeps the last maxRecords ledger rows, and every balance still equals its ledger sum', () => {
  const store = new MemoryStore({ maxRecords: 10 });
  store.addKey('sk-ledger-a', { id: 'a' });
  store.credit({ callerId: 'a', amount: 1000, idempotencyKey: 'opening-a' });
  store.addKey('sk-ledger-b', { id: 'b' });
  store.credit({ callerId: 'b', amount: 500, idempotencyKey: 'opening-b' });
  for (let i = 0; i < 200; i++) {
    const callerId = i % 3 === 0 ? 'b' : 'a';
    store.settle({ requestId: `l${i}`, callerId, model: 'm', endpoint: 'messages', cost: String(1 + (i % 2)), billingStatus: 'billed', usage });
    expect(store.getLedger().length).toBeLessThanOrEqual(10);
  }
  expect(store.getLedger().map((row) => row.requestId)).toEqual(Array.from({ length: 10 }, (_, k) => `l${190 + k}`));
  for (const id of ['a', 'b']) {
    const account = store.getAccount(id);
    expect(account.ledger).toBe(account.balance);
  }
  expect(store.getBalance('a') + store.getBalance('b')).toBe(1500 - 300); // 100 charges of 1 and 100 of 2
});

it('a request id reserved twice holds once, and its release gives it all back', () => {
  const store = new MemoryStore();
  store.addKey('sk-twice', { id: 'twice' });
  store.credit({ callerId: 'twice', amount: 1000, idempotencyKey: 'opening-twice' });
  const expiresAt = Date.now() + 60_000;
  expect(store.reserve({ instanceId: 'test', callerId: 'twice', requestId: 'same', amount: 300, expiresAt })).toEqual({ ok: true });
  expect(store.reserve({ instanceId: 'test', callerId: 'twice', requestId: 'same', amount: 400, expiresAt })).toEqual({ ok: true });
  expect(store.available('twice')).toBe(600);
  store.release('same');
  expect(store.available('twice')).toBe(1000);
  expect(store.getAccount('twice')).toEqual({ balance: 1000, held: 0, carry: '0', ledger: 1000 });
});

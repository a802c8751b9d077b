/** Two PostgresStore instances batching settles and reserves over the same callers in opposite orders: no deadlock surfaces, money stays right. */
import { randomBytes } from 'node:crypto';
import { PostgresStore } from '../../lib';
import type { Settlement, Usage } from '../../lib';
import { pgPool, pgStore } from '../helpers/services';
import { usageOf } from '../helpers/usage';

const usage: Usage = usageOf({ inputTokens: 1, outputTokens: 1 });

/** Runs `test` with two PostgresStore instances (own pools) on one fresh schema, and cleans up. */
async function withTwoInstances(test: (one: PostgresStore, two: PostgresStore) => Promise<void>): Promise<void> {
  const made = await pgStore();
  const pool2 = await pgPool();
  const other = new PostgresStore({ pool: pool2, schema: made.schema, sweepIntervalMs: 0 });
  try {
    await test(made.store, other);
  } finally {
    await other.close();
    await pool2.end();
    await made.drop();
  }
}

it('batched settles from two instances over the same callers never deadlock', () => withTwoInstances(async (one, other) => {
  const callers = Array.from({ length: 8 }, (_, i) => `dl_${i}`);
  for (const id of callers) {
    await one.addKey(`k-${id}-${randomBytes(4).toString('hex')}`, { id });
    await one.credit({ callerId: id, amount: 1_000_000, idempotencyKey: `opening-${id}` });
  }
  const errors: unknown[] = [];
  for (let round = 0; round < 30; round++) {
    const a = callers.map((c) => ({ requestId: `a_${round}_${c}`, callerId: c }));
    const b = [...callers].reverse().map((c) => ({ requestId: `b_${round}_${c}`, callerId: c }));
    const s = (x: { requestId: string; callerId: string }): Settlement => ({ ...x, model: 'm', endpoint: 'messages', cost: '1', billingStatus: 'billed', usage });
    await Promise.all([...a.map((x) => one.settle(s(x)).catch((e: unknown) => errors.push(e))), ...b.map((x) => other.settle(s(x)).catch((e: unknown) => errors.push(e)))]);
  }
  expect(errors.map(String)).toEqual([]);
  for (const id of callers) expect(await one.getAccount(id)).toEqual({ balance: 1_000_000 - 60, held: 0, carry: '0', ledger: 1_000_000 - 60 });
}));

it('batched reserves and settles from two instances over the same callers: no error, never more held than the balance', () => withTwoInstances(async (one, other) => {
  const callers = Array.from({ length: 6 }, (_, i) => `rs_${i}`);
  for (const id of callers) {
    await one.addKey(`k-${id}-${randomBytes(4).toString('hex')}`, { id });
    await one.credit({ callerId: id, amount: 100, idempotencyKey: `opening-${id}` });
  }
  const errors: unknown[] = [];
  const ROUNDS = 20;
  const heldLastRound = new Map<string, number>(callers.map((c) => [c, 0]));
  const expiresAt = Date.now() + 60_000;
  for (let round = 0; round < ROUNDS; round++) {
    const reserve = (store: PostgresStore, tag: string, order: string[]) => order.map((c) =>
      store.reserve({ instanceId: 'test', callerId: c, requestId: `${tag}_${round}_${c}`, amount: 3, expiresAt })
        .then((r) => { if (r.ok && round === ROUNDS - 1) heldLastRound.set(c, (heldLastRound.get(c) ?? 0) + 3); }, (e: unknown) => errors.push(e)));
    // Settling the previous round's holds at the same time makes the two kinds of batch cross.
    const settle = (store: PostgresStore, tag: string, order: string[]) => order.map((c) =>
      store.settle({ requestId: `${tag}_${round - 1}_${c}`, callerId: c, model: 'm', endpoint: 'messages', cost: '1', billingStatus: 'billed', usage })
        .catch((e: unknown) => errors.push(e)));
    const reversed = [...callers].reverse();
    await Promise.all([...reserve(one, 'a', callers), ...reserve(other, 'b', reversed), ...settle(one, 'b', callers), ...settle(other, 'a', reversed)]);
  }
  expect(errors.map(String)).toEqual([]);
  for (const id of callers) {
    const account = await one.getAccount(id);
    expect(account.balance).toBe(account.ledger);
    expect(account.held).toBeLessThanOrEqual(account.balance);
    expect(account.held).toBe(heldLastRound.get(id)); // every earlier round's holds were settled and released
  }
}));

it('a reserve batch chosen as a deadlock victim is run again; any other database error is not retried', async () => {
  const made = await pgStore();
  let victims = 1;
  let broken = 0;
  const calls: string[] = [];
  // The real pool, with PostgreSQL's deadlock error injected into the next reserve batch(es).
  const pool = {
    connect: () => made.pool.connect(),
    query: (q: { name?: string; text: string; values?: unknown[] }) => {
      if (q.name?.endsWith('reserveMany')) {
        calls.push(q.name);
        if (victims > 0 && victims--) return Promise.reject(Object.assign(new Error('deadlock detected'), { code: '40P01' }));
        if (broken > 0 && broken--) return Promise.reject(Object.assign(new Error('disk full'), { code: '53100' }));
      }
      return made.pool.query(q);
    },
  };
  const store = new PostgresStore({ pool: pool as never, schema: made.schema, sweepIntervalMs: 0 });
  try {
    await made.store.addKey(`k-victim-${randomBytes(4).toString('hex')}`, { id: 'victim' });
    await made.store.credit({ callerId: 'victim', amount: 10, idempotencyKey: 'opening-victim' });
    expect(await store.reserve({ instanceId: 'test', callerId: 'victim', requestId: 'rv_1', amount: 4, expiresAt: Date.now() + 60_000 })).toEqual({ ok: true });
    expect(calls).toHaveLength(2);
    broken = 1;
    await expect(store.reserve({ instanceId: 'test', callerId: 'victim', requestId: 'rv_2', amount: 4, expiresAt: Date.now() + 60_000 })).rejects.toThrow('disk full');
    expect(calls).toHaveLength(3);
    expect(await made.store.getAccount('victim')).toMatchObject({ balance: 10, held: 4 });
  } finally {
    await store.close();
    await made.drop();
  }
});

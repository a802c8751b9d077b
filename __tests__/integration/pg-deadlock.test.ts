/** Two PostgresStore instances settling batches over the same callers in opposite orders: no deadlock, every charge once. */
import { randomBytes } from 'node:crypto';
import { PostgresStore } from '../../lib';
import type { Settlement, Usage } from '../../lib';
import { pgPool, pgStore } from '../helpers/services';

const usage: Usage = { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, searchUnits: 0, provenance: 'confirmed' };
it('batched settles from two instances over the same callers never deadlock', async () => {
  const made = await pgStore();
  const pool2 = await pgPool();
  const other = new PostgresStore({ pool: pool2, schema: made.schema, sweepIntervalMs: 0 });
  try {
    const callers = Array.from({ length: 8 }, (_, i) => `dl_${i}`);
    for (const id of callers) await made.store.addKey(`k-${id}-${randomBytes(4).toString('hex')}`, { id, balance: 1_000_000 });
    const errors: unknown[] = [];
    for (let round = 0; round < 30; round++) {
      const a = callers.map((c) => ({ requestId: `a_${round}_${c}`, callerId: c }));
      const b = [...callers].reverse().map((c) => ({ requestId: `b_${round}_${c}`, callerId: c }));
      const s = (x: { requestId: string; callerId: string }): Settlement => ({ ...x, model: 'm', endpoint: 'messages', charge: 1, billingStatus: 'billed', usage });
      await Promise.all([...a.map((x) => made.store.settle(s(x)).catch((e: unknown) => errors.push(e))), ...b.map((x) => other.settle(s(x)).catch((e: unknown) => errors.push(e)))]);
    }
    expect(errors.map(String)).toEqual([]);
    for (const id of callers) expect(await made.store.getAccount(id)).toEqual({ balance: 1_000_000 - 60, held: 0, ledger: 1_000_000 - 60 });
  } finally {
    other.close();
    await pool2.end();
    await made.drop();
  }
});

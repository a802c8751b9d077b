/** PostgresStore's settlement of a batch: one transaction that charges each caller through its carried remainder. */
import { carryCharge } from '../billing/money';
import type { PgPoolLike, PgQueryable } from './migrate';
import { num } from './postgres-reads';
import type { statements } from './postgres-sql';
import type { SettleResult, Settlement } from './types';

type Statements = ReturnType<typeof statements>;

/** Runs a statement on the transaction's client as a named (prepared) query. */
type Run = (client: PgQueryable, name: keyof Statements, values: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>;

/**
 * Settles a batch exactly once per request id. The callers' balance rows are locked first (in
 * caller order), so no other settlement of theirs can commit in between: the requests not settled
 * yet are then charged in order, each adding its cost to its caller's carried remainder.
 */
export async function settleBatch(pool: PgPoolLike, run: Run, list: Settlement[]): Promise<SettleResult[]> {
  const unique = new Map<string, Settlement>();
  for (const s of list) if (!unique.has(s.requestId)) unique.set(s.requestId, s);
  const charged = new Map<string, number>();
  const client = await pool.connect();
  // A connection the server ends while it is lent out emits 'error' on the client: caught here,
  // the running query fails and the batch is retried; uncaught, it would end the process.
  let lost: Error | undefined;
  const onError = (err: Error): void => { lost = err; };
  client.on?.('error', onError);
  const giveBack = (err?: Error | boolean): void => {
    client.off?.('error', onError);
    client.release(err);
  };
  try {
    await client.query('BEGIN');
    const callers = [...new Set(list.map((s) => s.callerId))].sort();
    const carries = new Map((await run(client, 'lockCarries', [callers])).rows.map((r) => [r.caller_id as string, String(r.carry)]));
    const done = new Map((await run(client, 'settledCharges', [[...unique.keys()]])).rows.map((r) => [r.request_id as string, num(r.charge)]));
    const rows: Array<Record<string, unknown>> = [];
    for (const s of unique.values()) {
      if (done.has(s.requestId)) continue;
      const { charge, carry } = carryCharge(carries.get(s.callerId) ?? '0', s.cost);
      carries.set(s.callerId, carry);
      charged.set(s.requestId, charge);
      rows.push({
        request_id: s.requestId, caller_id: s.callerId, model: s.model, endpoint: s.endpoint, charge, cost: s.cost,
        billing_status: s.billingStatus, usage: s.usage, search_units: Number.isSafeInteger(s.usage.searchUnits) ? s.usage.searchUnits : 0,
      });
    }
    if (rows.length > 0) {
      const touched = [...new Set(rows.map((r) => r.caller_id as string))].map((id) => ({ caller_id: id, carry: carries.get(id) ?? '0' }));
      await run(client, 'settleMany', [JSON.stringify(rows), JSON.stringify(touched)]);
    }
    await client.query('COMMIT');
    giveBack(lost);
    // A request id listed twice in one batch is applied once: only its first occurrence reports it.
    return list.map((s, i): SettleResult => {
      const charge = charged.get(s.requestId) ?? done.get(s.requestId) ?? 0;
      return { applied: charged.has(s.requestId) && list.findIndex((o) => o.requestId === s.requestId) === i, charge };
    });
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    giveBack(err instanceof Error ? err : true);
    throw err;
  }
}

/**
 * Runs a batch statement again when PostgreSQL chose it as a deadlock victim (two batches
 * locking shared balance rows in different orders); it is idempotent per request id.
 */
export async function retryDeadlock<T>(query: () => Promise<T>, attempts = 3): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await query();
    } catch (err) {
      if (n >= attempts || (err as { code?: string }).code !== '40P01') throw err;
    }
  }
}

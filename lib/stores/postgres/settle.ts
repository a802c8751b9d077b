/** PostgresStore's settlement of a batch: one statement that charges each caller through its carried remainder. */
import { tokensOf } from '../../billing/figures';
import { toPico } from '../../billing/money';
import type { PgPoolLike, PgQueryable, PgResult } from './migrate';
import { num } from './reads';
import { scopeTotals } from './sql';
import type { SettleResult, Settlement } from '../types';

/** SQLSTATE of a settlement that met a concurrent settle of one of its request ids (raised by settleAll; retried). */
const RACED = '40001';

/**
 * The settlement of a batch in one statement (run between BEGIN and COMMIT on a lent client, so a
 * connection lost mid-way fails that batch only). The callers' rows are locked first, in caller order; the requests
 * not settled yet are charged in batch order, each adding its cost to its caller's remainder:
 * charge = floor(carry + costs so far) − floor(carry + costs before it), exactly carryCharge()
 * in sequence. A request settled by another transaction after this statement's snapshot makes
 * the insert skip it: the statement then raises 40001 and is run again (it sees it settled).
 * Budgets: each settled request adds its charge, tokens and (unless not billed) one request to its
 * scopes' rows of the periods it names, a row's spend stopping at the cap (the rest is excess), and
 * the holds it deletes give back what they held on their scopes.
 */
export const settleSql = (s: string): string => `WITH x AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(i int, request_id text, caller_id text, model text, endpoint text,
      cost numeric, billing_status text, usage jsonb, search_units bigint, scopes jsonb, tokens bigint, counted int)),
  b AS (SELECT caller_id, carry FROM ${s}.balances WHERE caller_id IN (SELECT caller_id FROM x) ORDER BY caller_id FOR UPDATE),
  d AS (SELECT request_id, charge FROM ${s}.settlements WHERE request_id IN (SELECT request_id FROM x)),
  n AS (SELECT x.*, coalesce(b.carry, 0) + sum(x.cost) OVER (PARTITION BY x.caller_id ORDER BY x.i) AS upto
    FROM x LEFT JOIN b USING (caller_id) WHERE NOT EXISTS (SELECT 1 FROM d WHERE d.request_id = x.request_id)),
  w AS (SELECT n.*, (floor(upto) - floor(upto - cost))::bigint AS charge FROM n),
  s AS (INSERT INTO ${s}.settlements (request_id, caller_id, model, endpoint, charge, cost, billing_status, usage)
    SELECT request_id, caller_id, model, endpoint, charge, cost, billing_status, usage FROM w
    ON CONFLICT (request_id) DO NOTHING RETURNING request_id, caller_id, charge),
  h AS (DELETE FROM ${s}.holds USING s WHERE ${s}.holds.request_id = s.request_id
    RETURNING ${s}.holds.caller_id, ${s}.holds.amount, ${s}.holds.tokens, ${s}.holds.scopes),
  l AS (INSERT INTO ${s}.ledger (caller_id, request_id, amount, kind) SELECT caller_id, request_id, -charge, 'charge' FROM s WHERE charge <> 0),
  r AS (INSERT INTO ${s}.reviews (request_id, caller_id, model, endpoint, charge, usage, search_units)
    SELECT w.request_id, w.caller_id, w.model, w.endpoint, w.charge, w.usage, w.search_units FROM w JOIN s USING (request_id)
    WHERE w.billing_status = 'needs_review'),
  c AS (SELECT caller_id, sum(charge) AS charged, max(upto) AS upto FROM w GROUP BY caller_id),
  hh AS (SELECT caller_id, sum(amount) AS released FROM h GROUP BY caller_id),
  u AS (UPDATE ${s}.balances SET balance = balance - c.charged, held = held - coalesce(hh.released, 0), carry = c.upto - floor(c.upto)
    FROM c LEFT JOIN hh USING (caller_id) WHERE ${s}.balances.caller_id = c.caller_id RETURNING 1),
  sc AS (SELECT e->>'scope' AS scope, e->>'period' AS period, min((e->>'amount')::bigint) AS cap, sum(s.charge) AS charged,
      sum(w.tokens) AS tokens, sum(w.counted) AS requests
    FROM s JOIN w USING (request_id) CROSS JOIN LATERAL jsonb_array_elements(coalesce(w.scopes, '[]'::jsonb)) e GROUP BY 1, 2),
  hr AS (${scopeTotals('h')}),
  t AS (SELECT coalesce(sc.scope, hr.scope) AS scope, coalesce(sc.period, hr.period) AS period, sc.cap, coalesce(sc.charged, 0) AS charged,
      coalesce(sc.tokens, 0) AS tokens, coalesce(sc.requests, 0) AS requests, coalesce(hr.amount, 0) AS released,
      coalesce(hr.tokens, 0) AS released_tokens, coalesce(hr.n, 0) AS released_n
    FROM sc FULL JOIN hr ON hr.scope = sc.scope AND hr.period = sc.period),
  us AS (UPDATE ${s}.budget_spend p SET
      spent = CASE WHEN t.cap IS NULL THEN p.spent + t.charged ELSE least(p.spent + t.charged, greatest(t.cap, p.spent)) END,
      excess = p.excess + CASE WHEN t.cap IS NULL THEN 0 ELSE greatest(0, p.spent + t.charged - greatest(t.cap, p.spent)) END,
      held = p.held - t.released, tokens = p.tokens + t.tokens, tokens_held = p.tokens_held - t.released_tokens,
      requests = p.requests + t.requests, requests_held = p.requests_held - t.released_n
    FROM t WHERE p.scope = t.scope AND p.period = t.period)
  SELECT request_id, charge, true AS now FROM w
    WHERE CASE WHEN (SELECT count(*) FROM s) = (SELECT count(*) FROM w) THEN true ELSE ${s}.settle_raced() END
  UNION ALL SELECT request_id, charge, false FROM d`;

/** Makes the period rows a batch's budgets name, if missing (rows are never written here: a reset is a new row). */
const ensureRowsSql = (s: string): string => `INSERT INTO ${s}.budget_spend (scope, period)
  SELECT e->>0, e->>1 FROM jsonb_array_elements($1::jsonb) e ORDER BY 1, 2 ON CONFLICT DO NOTHING`;

/** Settles a batch exactly once per request id (a request id listed twice is applied once: its first occurrence reports it). */
export async function settleBatch(pool: PgPoolLike, schema: string, list: Settlement[]): Promise<SettleResult[]> {
  const sql = settleSql(schema);
  const rows: Array<Record<string, unknown>> = [];
  const first = new Map<string, number>();
  list.forEach((s, i) => {
    if (first.has(s.requestId)) return;
    if (toPico(s.cost) === undefined) throw new RangeError(`cost must be a non-negative decimal with at most 12 decimals (got ${JSON.stringify(s.cost)})`);
    first.set(s.requestId, i);
    const scoped = s.scopes !== undefined && s.scopes.length > 0;
    rows.push({
      i, request_id: s.requestId, caller_id: s.callerId, model: s.model, endpoint: s.endpoint, cost: s.cost,
      billing_status: s.billingStatus, usage: s.usage, search_units: Number.isSafeInteger(s.usage.searchUnits) ? s.usage.searchUnits : 0,
      ...(scoped ? { scopes: s.scopes, tokens: tokensOf(s.usage, 'input') + tokensOf(s.usage, 'output'), counted: s.billingStatus === 'not_billed' ? 0 : 1 } : {}),
    });
  });
  const periods = new Map<string, [string, string]>();
  for (const s of list) for (const p of s.scopes ?? []) periods.set(JSON.stringify([p.scope, p.period]), [p.scope, p.period]);
  // Planned for each call: a generic plan cached while the tables were small would scan them whole.
  const result = await retrying(() => inTransaction(pool, async (client) => {
    // A scope's period row exists once any request was held on it; one settled without a hold (it lapsed) may be the first.
    if (periods.size > 0) await client.query(ensureRowsSql(schema), [JSON.stringify([...periods.values()])]);
    return client.query(sql, [JSON.stringify(rows)]);
  }));
  const out = new Map(result.rows.map((r) => [r.request_id as string, { now: r.now === true, charge: num(r.charge) }]));
  return list.map((s, i): SettleResult => {
    const row = out.get(s.requestId);
    return { applied: row?.now === true && first.get(s.requestId) === i, charge: row?.charge ?? 0 };
  });
}

/** Runs `work` between BEGIN and COMMIT on a lent client (the lock taken by the statement is held until the commit). */
async function inTransaction(pool: PgPoolLike, work: (client: PgQueryable) => Promise<PgResult>): Promise<PgResult> {
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
    const out = await work(client);
    await client.query('COMMIT');
    giveBack(lost);
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    giveBack(err instanceof Error ? err : true);
    throw err;
  }
}

/**
 * Runs a batch statement again when PostgreSQL chose it as a deadlock victim (two batches
 * locking shared balance rows in different orders) or a settlement raced another; it is
 * idempotent per request id.
 */
export async function retrying<T>(query: () => Promise<T>, attempts = 5): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await query();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (n >= attempts || (code !== '40P01' && code !== RACED)) throw err;
    }
  }
}

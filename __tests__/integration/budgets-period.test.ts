/**
 * Periods on a controlled clock (each gateway's `budgets.clock`; no timers faked): two instances on
 * one PostgreSQL, a daily cap in Europe/Paris. Requests admitted just before midnight and still in
 * flight after it settle in the day they were admitted in; the new day starts empty once, whichever
 * instance reaches it first (one row, not one per instance), and both instances fill that one row.
 */
import { anthropicAdapter } from '../../lib';
import { boundAmount, requestBound } from '../../lib/billing/bound';
import { GATEWAY_DEFAULTS } from '../../lib/foundation/defaults';
import { periodAt } from '../../lib/budgets/periods';
import { hashKey } from '../../lib/stores/hash';
import { startUsageFake } from '../helpers/fake-usage';
import { UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';
import { pgInstances, type PgInstances } from '../helpers/pg-instances';

jest.setTimeout(60_000);
const PRICING = { input: 1_000_000, output: 1_000_000 };
const COST = 1100; // usage-1000-100, answered when the test opens the gates
const BODY = { model: 'costly', max_tokens: 100, messages: [{ role: 'user', content: 'tick' }] };
const bound = ((b) => ('unbounded' in b ? 0 : boundAmount(b.inputTokens, b.outputTokens, PRICING)))(requestBound(structuredClone(BODY), GATEWAY_DEFAULTS.budgets));
const CAP = 4 * bound;
const ZONE = 'Europe/Paris';
/** Midnight in Paris between 30 and 31 March 2030 (the next day is 23 hours long). */
const MIDNIGHT = Date.parse('2030-03-30T23:00:00Z');

let upstream: GatedFake;
let running: PgInstances;
/** Each instance's clock, set by the test: the store is shared, the clocks are not. */
const clocks = [MIDNIGHT - 1000, MIDNIGHT - 1000];

beforeAll(async () => {
  upstream = await startUsageFake();
  const adapter = anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY });
  running = await pgInstances(2, (i) => ({
    budgets: { clock: () => clocks[i] as number },
    models: [{ id: 'costly', capability: 'llm', upstream: adapter, upstreamModel: 'usage-1000-100-gated', pricing: PRICING }],
  }));
});
afterAll(async () => {
  await running.close();
  await upstream.close();
});

/** `n` requests, alternating between the instances; resolves with each one's status once it is answered. */
const burst = (n: number, secret: string): Array<Promise<number>> => Array.from({ length: n }, (_, i) => fetch(`${running.instances[i % 2]?.url}/v1/messages`, {
  method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(BODY),
}).then(async (res) => { await res.text(); return res.status; }));

/** Waits until `admitted` of a burst reached the upstream (where they wait) and the rest were refused. */
async function decided(burstOf: Array<Promise<number>>, from: number, admitted: number): Promise<void> {
  let refused = 0;
  for (const p of burstOf) void p.then((s) => { if (s === 402) refused++; });
  for (let i = 0; i < 500 && (upstream.calls - from < admitted || refused < burstOf.length - admitted); i++) await new Promise((r) => setTimeout(r, 10));
  expect([upstream.calls - from, refused]).toEqual([admitted, burstOf.length - admitted]);
}

it('requests in flight across midnight settle in the day they were admitted in; the new day is one fresh row for both instances', async () => {
  const callerId = 'c_period';
  const secret = 'sk-period-0123456789abcdef0123';
  const record = await running.admin.createKey({ keyHash: hashKey(secret), prefix: 'sk-period', callerId,
    budget: { amount: CAP, period: 'day', timeZone: ZONE, requests: null, tokens: null, perSession: null, perSubagent: null } });
  await running.admin.credit({ callerId, amount: 10_000_000, idempotencyKey: 'open-period' });
  const scope = `key:${record.keyId}`;
  const [today, tomorrow] = [periodAt('day', ZONE, MIDNIGHT - 1), periodAt('day', ZONE, MIDNIGHT)];
  expect([today.key, tomorrow.key, today.end, tomorrow.start]).toEqual(['d:2030-03-30', 'd:2030-03-31', MIDNIGHT, MIDNIGHT]);

  // One second before midnight: six requests through both instances; four fit the day's cap and stay in flight.
  let calls = upstream.calls;
  const before = burst(6, secret);
  await decided(before, calls, 4);

  // Past midnight on both clocks (not quite the same instant): six more, and four fit the new day's cap.
  clocks[0] = MIDNIGHT + 5;
  clocks[1] = MIDNIGHT + 500;
  calls = upstream.calls;
  const after = burst(6, secret);
  await decided(after, calls, 4);
  upstream.openGates();
  expect((await Promise.all([...before, ...after])).filter((s) => s === 200)).toHaveLength(8);
  for (let i = 0; i < 200 && (await running.admin.getAccount(callerId)).held !== 0; i++) await new Promise((r) => setTimeout(r, 20));

  // The four admitted before midnight settled after it, in their own day; the new day has the other four.
  const rows = async () => (await running.admin.budgetUsage({ scope })).items.map((u) => [u.period, u.spent, u.held, u.requests, u.excess]);
  expect(await rows()).toEqual([[today.key, 4 * COST, 0, 4, 0], [tomorrow.key, 4 * COST, 0, 4, 0]]);
  expect(await running.admin.getAccount(callerId)).toMatchObject({ balance: 10_000_000 - 8 * COST, held: 0, ledger: 10_000_000 - 8 * COST });

  // Hours later, on either instance, the same row: the day reset once, not once per instance.
  clocks[0] = MIDNIGHT + 3_600_000;
  clocks[1] = MIDNIGHT + 7_200_000;
  const room = Math.floor((CAP - 4 * COST) / bound);
  expect(room).toBeGreaterThan(0);
  calls = upstream.calls;
  const later = burst(room + 2, secret);
  await decided(later, calls, room);
  upstream.openGates();
  await Promise.all(later);
  for (let i = 0; i < 200 && (await running.admin.getAccount(callerId)).held !== 0; i++) await new Promise((r) => setTimeout(r, 20));
  expect(await rows()).toEqual([[today.key, 4 * COST, 0, 4, 0], [tomorrow.key, (4 + room) * COST, 0, 4 + room, 0]]);
});

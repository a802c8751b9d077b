/**
 * Never over, across instances: two gateways, each with its own PostgresStore and pool, on one
 * PostgreSQL schema. 100 concurrent requests (half through each) against a cap that fits ten
 * bounds, over three rounds, for a key's cap, a session's cap and an organisation's cap shared by
 * two accounts: each round admits exactly what the cap has room for, no scope ends above its cap
 * by one minor unit, nothing stays held, and the ledger equals the balance.
 */
import type { Pool } from 'pg';
import { anthropicAdapter, type PostgresStore } from '../../lib';
import { boundAmount, requestBound } from '../../lib/billing/bound';
import { GATEWAY_DEFAULTS } from '../../lib/foundation/defaults';
import type { BudgetLimits } from '../../lib/schemas/budgets';
import { hashKey } from '../../lib/stores/hash';
import { startUsageFake } from '../helpers/fake-usage';
import { UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';
import { pgInstances, waitingReserves, type PgInstances } from '../helpers/pg-instances';

jest.setTimeout(120_000);
const PRICING = { input: 1_000_000, output: 1_000_000 }; // one unit per token
const COST = 1100; // what the fake confirms for each request (usage-1000-100); it answers when the test opens its gates
const BODY = { model: 'costly', max_tokens: 100, messages: [{ role: 'user', content: 'race' }] };
const bound = ((b) => ('unbounded' in b ? 0 : boundAmount(b.inputTokens, b.outputTokens, PRICING)))(requestBound(structuredClone(BODY), GATEWAY_DEFAULTS.budgets));
const CAP = 10 * bound;
const DAY = `d:${new Date().toISOString().slice(0, 10)}`;

let upstream: GatedFake;
let running: PgInstances;
let admin: PostgresStore;
let adminPool: Pool;
let schema: string;

beforeAll(async () => {
  upstream = await startUsageFake();
  running = await pgInstances(2, { models: [{ id: 'costly', capability: 'llm', upstream: anthropicAdapter({ baseURL: upstream.url, apiKey: UPSTREAM_KEY }), upstreamModel: 'usage-1000-100-gated', pricing: PRICING }] });
  ({ admin, pool: adminPool, schema } = running);
});
afterAll(async () => {
  await running.close();
  await upstream.close();
});

const cap = (amount: number | null, more: Partial<BudgetLimits> = {}): BudgetLimits =>
  ({ amount, period: 'day', timeZone: 'UTC', requests: null, tokens: null, perSession: null, perSubagent: null, ...more });

async function newKey(callerId: string, budget: BudgetLimits | null): Promise<{ secret: string; keyId: string }> {
  const secret = `sk-race-${callerId}-0123456789abcdef`;
  const record = await admin.createKey({ keyHash: hashKey(secret), prefix: 'sk-race', callerId, budget });
  await admin.credit({ callerId, amount: 10_000_000, idempotencyKey: `open-${callerId}` });
  return { secret, keyId: record.keyId };
}

const send = (i: number, secret: string, headers: Record<string, string>): Promise<number> => fetch(`${running.instances[i % 2]?.url}/v1/messages`, {
  method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers }, body: JSON.stringify(BODY),
}).then(async (res) => { await res.text(); return res.status; });

/** Waits until nothing is held for the callers (every admitted request settled). */
async function settled(callers: string[]): Promise<void> {
  for (let n = 0; n < 500; n++) {
    const held = await Promise.all(callers.map(async (c) => (await admin.getAccount(c)).held));
    if (held.every((h) => h === 0)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('holds never released');
}

/** Three rounds of 100 concurrent requests (keys and headers by index) against one scope: each admits exactly the room the cap leaves. */
async function rounds(scope: string, callers: string[], request: (i: number) => Promise<number>): Promise<void> {
  let spent = 0;
  for (let round = 0; round < 3; round++) {
    // Every admitted request waits at the upstream until all 100 are admitted or refused: none settles early to make room.
    // And the two instances' reserves race for certain: a third connection holds the accounts' rows until both queue behind it.
    const blocker = await adminPool.connect();
    await blocker.query('BEGIN');
    await blocker.query(`SELECT 1 FROM ${schema}.balances WHERE caller_id = ANY($1) FOR UPDATE`, [callers]);
    const calls = upstream.calls;
    let refused = 0;
    const all = Promise.all(Array.from({ length: 100 }, (_, i) => request(i).then((status) => { if (status !== 200) refused++; return status; })));
    for (let n = 0; n < 300 && (await waitingReserves(adminPool)) < 2; n++) await new Promise((r) => setTimeout(r, 10));
    await blocker.query('COMMIT');
    blocker.release();
    for (let n = 0; n < 1000 && refused + upstream.calls - calls < 100; n++) await new Promise((r) => setTimeout(r, 10));
    upstream.openGates();
    const statuses = await all;
    const room = Math.floor((CAP - spent) / bound);
    expect([round, statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 402).length]).toEqual([round, Math.min(100, room), 100 - Math.min(100, room)]);
    await settled(callers);
    spent += room * COST;
    const usage = (await admin.budgetUsage({ scope, period: DAY })).items[0];
    expect(usage).toMatchObject({ scope, spent, held: 0, excess: 0, requestsHeld: 0, tokensHeld: 0 });
    expect(usage?.spent).toBeLessThanOrEqual(CAP);
    for (const c of callers) {
      const account = await admin.getAccount(c);
      expect(account).toMatchObject({ held: 0, ledger: account.balance });
    }
  }
  expect(spent).toBeGreaterThan(CAP / 2); // three rounds filled most of the cap
}

it('the race holds on real numbers: a request\'s bound is a few thousand units and its cost 1100', async () => {
  expect(bound).toBeGreaterThan(COST);
  expect(bound).toBeLessThan(10_000);
  // The refusal states the same bound: what the gateway held is what this test computed.
  const { secret } = await newKey('c_race_probe', cap(bound - 1));
  const res = await fetch(`${running.instances[0]?.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(BODY) });
  expect((await res.json() as { error: { message: string } }).error.message).toContain(`may cost up to ${bound};`);
});

it('a key\'s cap: 100 concurrent requests through two instances, three rounds, never over', async () => {
  const { secret, keyId } = await newKey('c_race_key', cap(CAP));
  await rounds(`key:${keyId}`, ['c_race_key'], (i) => send(i, secret, {}));
});

it('a session\'s cap (the key\'s template, Claude Code\'s session header), never over', async () => {
  const { secret, keyId } = await newKey('c_race_session', cap(null, { perSession: { amount: CAP, period: 'day', timeZone: 'UTC', requests: null, tokens: null } }));
  await rounds(`session:key:${keyId}/race-session`, ['c_race_session'], (i) => send(i, secret, { 'x-claude-code-session-id': 'race-session' }));
});

it('an organisation\'s cap shared by two accounts, never over', async () => {
  const a = await newKey('c_race_org_a', null);
  const b = await newKey('c_race_org_b', null);
  await admin.putBudget('org:race-org', cap(CAP));
  await admin.setOrganization('c_race_org_a', 'race-org');
  await admin.setOrganization('c_race_org_b', 'race-org');
  // Each account through its own instance: the two instances' calls share no account, only the organisation's row.
  await rounds('org:race-org', ['c_race_org_a', 'c_race_org_b'], (i) => send(i, i % 2 === 0 ? a.secret : b.secret, {}));
});

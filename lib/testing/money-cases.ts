/** The store contract, money half: keys found by digest, holds, settlements exactly once, exact carry. */
import { fromPico, PICO_PER_UNIT } from '../billing/money';
import { hashKey } from '../stores/hash';
import { later, random, rid, settlement, sleep, type Suite } from './contract';

/** A cost in pico-units, as the property cases draw them: up to one unit, up to 50, or one fixed sub-unit figure. */
function subUnitCost(next: () => number): bigint {
  const upTo = (max: bigint): bigint => (next() < 0.1 ? (next() < 0.5 ? 0n : max) : BigInt(Math.floor(next() * Number(max + 1n))));
  const kind = next();
  return kind < 1 / 3 ? upTo(PICO_PER_UNIT) : kind < 2 / 3 ? upTo(50n * PICO_PER_UNIT) : 25_800_000_000n;
}

export function moneyCases(s: Suite): void {
  const { it, expect } = s;

  it('finds a caller by key digest only, with its allow-list and disabled flag', async () => {
    const id = await s.caller(0, { models: ['a', 'b'], disabled: true });
    expect(await s.store().findCaller(hashKey(`key-${id}`))).toMatchObject({ id, models: ['a', 'b'], disabled: true });
    expect(await s.store().findCaller(hashKey('nope'))).toBeUndefined();
    expect(await s.store().findCaller(`key-${id}`)).toBeUndefined(); // the clear key is not a lookup key
  });

  it('reserve is a check-and-hold on balance minus live holds', async () => {
    const id = await s.caller(100);
    expect(await s.store().reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 60, expiresAt: later() })).toEqual({ ok: true });
    expect(await s.store().reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 60, expiresAt: later() })).toEqual({ ok: false, available: 40 });
    expect(await s.store().getAccount(id)).toMatchObject({ balance: 100, held: 60 });
  });

  it('concurrent reserves never hold more than the balance', async () => {
    const id = await s.caller(200);
    const results = await Promise.all(Array.from({ length: 50 }, () => s.store().reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 10, expiresAt: later() })));
    expect(results.filter((r) => r.ok)).toHaveLength(20);
    expect((await s.store().getAccount(id)).held).toBe(200);
  });

  it('reserves of several callers made together: each caller admitted in order while it fits, refusals say what was left', async () => {
    const [a, b, none] = [await s.caller(100), await s.caller(25), `c_missing_${rid()}`];
    const ask = (callerId: string, amount: number) => s.store().reserve({ instanceId: 'test', callerId, requestId: rid(), amount, expiresAt: later() });
    const results = await Promise.all([ask(a, 60), ask(b, 10), ask(a, 30), ask(none, 1), ask(b, 10), ask(a, 20), ask(b, 10)]);
    expect(results).toEqual([
      { ok: true }, { ok: true }, { ok: true }, { ok: false, available: 0 }, { ok: true }, { ok: false, available: 10 }, { ok: false, available: 5 },
    ]);
    expect(await s.store().getAccount(a)).toMatchObject({ balance: 100, held: 90 });
    expect(await s.store().getAccount(b)).toMatchObject({ balance: 25, held: 20 });
  });

  it('settle charges once per request id, releases the hold, and a repeat (even concurrent) is a no-op', async () => {
    const id = await s.caller(1000);
    const requestId = rid();
    await s.store().reserve({ instanceId: 'test', callerId: id, requestId, amount: 300, expiresAt: later() });
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => s.store().settle(settlement(requestId, id, 120))));
    expect(outcomes.filter((o) => o.applied)).toHaveLength(1);
    expect(await s.store().getAccount(id)).toEqual({ balance: 880, held: 0, carry: '0', ledger: 880 });
  });

  /** Settles `costs` (pico-units) for a new caller, `wave` at a time concurrently; checks the exact-money rule. */
  async function settleExactly(costs: bigint[], wave: number): Promise<void> {
    const id = await s.caller(1_000_000_000);
    const ids = costs.map(() => rid());
    let charged = 0;
    for (let i = 0; i < costs.length; i += wave) {
      const results = await Promise.all(costs.slice(i, i + wave).map((pico, j) => s.store().settle(settlement(ids[i + j] as string, id, fromPico(pico)))));
      for (const r of results) charged += r.charge;
    }
    const total = costs.reduce((a, b) => a + b, 0n);
    // Never more than the cost, short of it by less than one unit. Compared as text: a BigInt in a
    // failed assertion cannot cross to Jest's parent process, which then shows no name or diff.
    expect(String(charged)).toBe(String(total / PICO_PER_UNIT));
    expect(await s.store().getAccount(id)).toEqual({ balance: 1_000_000_000 - charged, held: 0, carry: fromPico(total % PICO_PER_UNIT), ledger: 1_000_000_000 - charged });
    // A retry returns the first result and moves nothing.
    const again = await s.store().settle(settlement(ids.at(-1) ?? rid(), id, '5')); // the newest: MemoryStore remembers the last maxRecords
    if (costs.length > 0) expect(again.applied).toBe(false);
  }

  it('exact money: for any sequence of costs, the total charged is the exact total rounded down and the rest is carried', async () => {
    const next = random(s.seed);
    for (let run = 0; run < 15; run++) {
      const costs = Array.from({ length: Math.floor(next() * 1501) }, () => subUnitCost(next));
      await settleExactly(costs, 1 + Math.floor(next() * 400));
    }
  }, 60_000);

  it('exact money: 10^5 confirmed sub-unit costs, settled concurrently, charge the exact total within one unit', async () => {
    const next = random(s.seed + 1);
    await settleExactly(Array.from({ length: 100_000 }, () => subUnitCost(next)), 2000);
  }, 120_000);

  it('a needs_review settlement charges only its charge and keeps a review record', async () => {
    const id = await s.caller(1000);
    const requestId = rid();
    await s.store().reserve({ instanceId: 'test', callerId: id, requestId, amount: 300, expiresAt: later() });
    expect(await s.store().settle(settlement(requestId, id, 0, 'needs_review'))).toEqual({ applied: true, charge: 0 });
    expect(await s.store().getAccount(id)).toEqual({ balance: 1000, held: 0, carry: '0', ledger: 1000 });
    expect((await s.store().listReviews({ callerId: id })).items).toEqual([expect.objectContaining({ requestId, callerId: id, model: 'm' })]);
  });

  it('release frees a hold without charging; expired holds stop counting and are swept', async () => {
    const id = await s.caller(100);
    const a = rid();
    await s.store().reserve({ instanceId: 'test', callerId: id, requestId: a, amount: 70, expiresAt: later() });
    await s.store().release(a);
    expect(await s.store().getAccount(id)).toMatchObject({ balance: 100, held: 0 });
    await s.store().reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 100, expiresAt: Date.now() + 50 });
    await sleep(80);
    await s.store().sweepExpiredHolds();
    expect(await s.store().getAccount(id)).toMatchObject({ balance: 100, held: 0 });
    expect(await s.store().reserve({ instanceId: 'test', callerId: id, requestId: rid(), amount: 100, expiresAt: later() })).toEqual({ ok: true });
  });

  it('renewHolds extends every live hold of one instance, not another instance\'s, and never revives a lapsed one', async () => {
    const id = await s.caller(300);
    const soon = (): number => Date.now() + 1000; // the renewal below comes well within it, however busy the machine
    await s.store().reserve({ instanceId: 'alive', callerId: id, requestId: rid(), amount: 100, expiresAt: soon() });
    await s.store().reserve({ instanceId: 'alive', callerId: id, requestId: rid(), amount: 100, expiresAt: soon() });
    await s.store().reserve({ instanceId: 'dead', callerId: id, requestId: rid(), amount: 100, expiresAt: soon() });
    await s.store().renewHolds('alive', later());
    await sleep(1050);
    await s.store().sweepExpiredHolds();
    expect(await s.store().getAccount(id)).toMatchObject({ balance: 300, held: 200 });
    await s.store().renewHolds('dead', later()); // too late: its hold lapsed and stays lapsed
    expect(await s.store().reserve({ instanceId: 'alive', callerId: id, requestId: rid(), amount: 100, expiresAt: later() })).toEqual({ ok: true });
    expect(await s.store().reserve({ instanceId: 'alive', callerId: id, requestId: rid(), amount: 1, expiresAt: later() })).toEqual({ ok: false, available: 0 });
  });

  it('a settle after the hold expired and was swept still charges exactly once', async () => {
    const id = await s.caller(100);
    const requestId = rid();
    await s.store().reserve({ instanceId: 'test', callerId: id, requestId, amount: 50, expiresAt: Date.now() + 20 });
    await sleep(40);
    await s.store().sweepExpiredHolds();
    await s.store().settle(settlement(requestId, id, 30));
    await s.store().settle(settlement(requestId, id, 30));
    expect(await s.store().getAccount(id)).toEqual({ balance: 70, held: 0, carry: '0', ledger: 70 });
  });
}

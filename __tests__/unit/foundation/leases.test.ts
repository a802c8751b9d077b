/** lib/foundation/leases.ts: the leases of live requests renewed together every quarter lease, until released or over. */
import { LeaseKeeper } from '../../../lib/foundation/leases';
import { refused } from '../../helpers/config-error';

describe('LeaseKeeper', () => {
  it('renews every live lease in one call, and drops one released or over', async () => {
    const renewed: string[][] = [];
    const over = new Set<string>();
    const keeper = new LeaseKeeper<string>(100_000, (items) => { renewed.push([...items]); }, (item) => over.has(item));
    keeper.track('r1', 'a');
    keeper.track('r2', 'b');
    keeper.track('r3', 'c');
    await keeper.tick();
    keeper.release('r2');
    over.add('c');
    await keeper.tick();
    expect(renewed).toEqual([['a', 'b', 'c'], ['a']]);
    expect(keeper.size).toBe(1);
    keeper.release('r1');
    await keeper.tick();
    expect(renewed).toHaveLength(2); // nothing to renew: no call
  });

  it('renews on its own every quarter lease', async () => {
    let calls = 0;
    const keeper = new LeaseKeeper<string>(200, () => { calls++; });
    keeper.track('r1', 'a');
    await new Promise((resolve) => setTimeout(resolve, 130));
    keeper.release('r1');
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('reports a failed renewal and keeps going', async () => {
    const errors: unknown[] = [];
    const keeper = new LeaseKeeper<string>(100_000, () => Promise.reject(new Error('db down')), undefined, (err) => errors.push(err));
    keeper.track('r1', 'a');
    await keeper.tick();
    expect(errors).toEqual([new Error('db down')]);
    expect(keeper.size).toBe(1);
    keeper.release('r1');
    await keeper.tick();
  });

  it('refuses a lease under 100 ms, by code', () => {
    expect(() => new LeaseKeeper(50, () => undefined)).toThrow(refused('ERR_MGW_INVALID_DURATION'));
  });
});

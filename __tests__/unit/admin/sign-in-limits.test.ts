/** lib/admin/sign-in-limits.ts: failures counted per address; past the limit every attempt waits until they age out. */
import { MemoryStore } from '../../../lib';
import { DEFAULT_MAX_FAILURES, FAILURE_WINDOW_S, SignInLimits, signInLimitsOf } from '../../../lib/admin/sign-in-limits';
import { MemorySessions } from '../../../lib/stores/memory/sessions';

describe('SignInLimits', () => {
  it('lets an address try until its failures are used up, then names the wait; other addresses are free', async () => {
    const limits = new SignInLimits(3, new MemorySessions().failureCounter(3, 60));
    for (let i = 0; i < 3; i++) {
      expect(await limits.waitOf('10.0.0.1')).toBeUndefined();
      await limits.failed('10.0.0.1');
    }
    const wait = await limits.waitOf('10.0.0.1');
    expect(wait).toBeGreaterThan(55);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await limits.waitOf('10.0.0.2')).toBeUndefined();
  });

  it('forgets the failures once the window ends', async () => {
    const limits = new SignInLimits(1, new MemorySessions().failureCounter(1, 1));
    await limits.failed('10.0.0.1');
    expect(await limits.waitOf('10.0.0.1')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await limits.waitOf('10.0.0.1')).toBeUndefined();
  });

  it('counts in this process for a store that keeps no sessions, with the default limit and a 15-minute window', async () => {
    const limits = signInLimitsOf(new MemoryStore());
    expect(limits.maxFailures).toBe(DEFAULT_MAX_FAILURES);
    for (let i = 0; i < DEFAULT_MAX_FAILURES; i++) await limits.failed('a');
    expect(await limits.waitOf('a')).toBe(FAILURE_WINDOW_S);
  });
});

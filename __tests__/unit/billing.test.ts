/** Integer money, the estimate and the usage provenance rules. */
import { chargeFor, defaultEstimator } from '../../lib';
import { UsageTracker } from '../../lib/billing/usage';

const usage = (input: number, output: number, read = 0, write = 0) =>
  ({ inputTokens: input, outputTokens: output, cacheReadInputTokens: read, cacheCreationInputTokens: write });

describe('chargeFor', () => {
  it('is price per million tokens, rounded up once per request', () => {
    expect(chargeFor(usage(1_000_000, 0), { input: 300 })).toBe(300);
    expect(chargeFor(usage(1, 0), { input: 300 })).toBe(1); // 0.0003 rounds up to 1
    expect(chargeFor(usage(0, 0), { input: 300 })).toBe(0);
    expect(chargeFor(usage(1000, 2000), { input: 3000, output: 15000 })).toBe(33); // 3 + 30
    expect(chargeFor(usage(100, 0, 1000, 1000), { input: 1000, cacheRead: 100, cacheWrite: 1250 })).toBe(2); // 0.1+0.1+1.25 = 1.45 -> 2
    expect(chargeFor(usage(5, 5), undefined)).toBe(0);
  });

  it('keeps precision where floating point would not', () => {
    expect(chargeFor(usage(9_007_199_254, 0), { input: 1_000_000_000 })).toBe(9_007_199_254_000);
  });
});

describe('defaultEstimator', () => {
  it('counts characters / 3 plus per-message overhead, and max_tokens as output', () => {
    expect(defaultEstimator({ system: 'abc', messages: [{ role: 'user', content: 'abcdef' }], max_tokens: 10 })).toEqual({ inputTokens: 3 + 8, outputTokens: 10 });
    expect(defaultEstimator({ messages: [{ content: [{ type: 'text', text: 'abc' }] }], max_completion_tokens: 4 })).toEqual({ inputTokens: 9, outputTokens: 4 });
    expect(defaultEstimator({ query: 'ab', documents: ['abcd', 'ef'] })).toEqual({ inputTokens: 4, outputTokens: 0 });
    expect(defaultEstimator(null)).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it('estimates a 1 MB prompt in well under 5 ms', () => {
    const body = { max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024) }] };
    defaultEstimator(body);
    const t = performance.now();
    for (let i = 0; i < 20; i++) defaultEstimator(body);
    expect((performance.now() - t) / 20).toBeLessThan(5);
  });
});

describe('UsageTracker', () => {
  it('gives confirmed, partial, units_only and none', () => {
    const t = new UsageTracker();
    expect(t.snapshot().provenance).toBe('none');
    t.report({ inputTokens: 10, outputTokens: 1 });
    expect(t.snapshot()).toMatchObject({ inputTokens: 10, outputTokens: 1, provenance: 'partial' });
    t.report({ outputTokens: 20 });
    t.complete();
    expect(t.snapshot()).toMatchObject({ inputTokens: 10, outputTokens: 20, provenance: 'confirmed' });
    const u = new UsageTracker();
    u.report({ searchUnits: 2 });
    u.complete();
    expect(u.snapshot().provenance).toBe('units_only');
    const n = new UsageTracker();
    n.report({ inputTokens: -1, outputTokens: Number.NaN });
    n.complete();
    expect(n.snapshot().provenance).toBe('none');
  });
});

/** Integer money, the estimate and the usage provenance rules. */
import fc from 'fast-check';
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
    // An estimate has no cache figures: they count as 0.
    expect(chargeFor({ inputTokens: 1000, outputTokens: 2000 }, { input: 3000, output: 15000, cacheRead: 1 })).toBe(33);
  });

  it('keeps precision where floating point would not', () => {
    expect(chargeFor(usage(9_007_199_254, 0), { input: 1_000_000_000 })).toBe(9_007_199_254_000);
  });

  it('gives the exact BigInt result on both sides of 2^53 (Number fast path and BigInt path)', () => {
    const exact = (u: ReturnType<typeof usage>, p: { input: number; output: number; cacheRead: number; cacheWrite: number }): number => {
      const micro = BigInt(u.inputTokens) * BigInt(p.input) + BigInt(u.outputTokens) * BigInt(p.output)
        + BigInt(u.cacheReadInputTokens) * BigInt(p.cacheRead) + BigInt(u.cacheCreationInputTokens) * BigInt(p.cacheWrite);
      return Number((micro + 999_999n) / 1_000_000n);
    };
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 2 ** 40 })), { minLength: 8, maxLength: 8 }),
      ([a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0]) => {
        const u = usage(a, b, c, d);
        const p = { input: e, output: f, cacheRead: g, cacheWrite: h };
        expect(chargeFor(u, p)).toBe(exact(u, p));
      },
    ), { numRuns: 2000 });
    // Just below and just above the largest safe integer, and a quotient a hair above a whole number.
    for (const tokens of [9_007_199_254, 9_007_199_255, 9_007_199_253]) {
      const u = usage(tokens, 0, 0, 0);
      for (const input of [999_999, 1_000_000, 1_000_001]) expect(chargeFor(u, { input })).toBe(exact(u, { input, output: 0, cacheRead: input, cacheWrite: input }));
    }
    expect(chargeFor(usage(9_007_199_254_740, 0), { input: 1 })).toBe(9_007_200); // 9,007,199.25474, rounded up
    expect(chargeFor(usage(2 ** 53 - 1, 0), { input: 1 })).toBe(9_007_199_255); // past the fast path: BigInt
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

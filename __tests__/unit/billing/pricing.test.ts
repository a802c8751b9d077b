/** Exact money, the estimate and the usage provenance rules. */
import fc from 'fast-check';
import { carryCharge, createCatalog, defaultEstimator } from '../../../lib';
import { costOf, holdFor } from '../../../lib/billing/pricing';
import { fromPico, toPico } from '../../../lib/billing/money';
import { pricesInEffect, pricingProblem, unpricedFigures, weightedTokens } from '../../../lib/billing/pricing';
import { FIGURE_NAMES, PRICE_FIELDS, tokensOf, USAGE_FIGURES } from '../../../lib/billing/figures';
import type { Pricing } from '../../../lib';
import { UsageTracker } from '../../../lib/billing/usage';
import { refused } from '../../helpers/config-error';

const usage = (input: number, output: number, read = 0, write = 0) =>
  ({ inputTokens: input, outputTokens: output, cacheReadInputTokens: read, cacheWrite5mInputTokens: write });

/** The exact cost in pico-units, computed the slow obvious way (BigInt, micro-unit prices). */
const exactPico = (u: ReturnType<typeof usage>, p: { input: number; output: number; cacheRead: number; cacheWrite: number }): bigint =>
  BigInt(u.inputTokens) * BigInt(p.input) + BigInt(u.outputTokens) * BigInt(p.output)
  + BigInt(u.cacheReadInputTokens) * BigInt(p.cacheRead) + BigInt(u.cacheWrite5mInputTokens) * BigInt(p.cacheWrite);

describe('costOf and holdFor', () => {
  it('is the exact price per million tokens, in minor units as a decimal string', () => {
    expect(costOf(usage(1_000_000, 0), { input: 300 })).toBe('300');
    expect(costOf(usage(1, 0), { input: 300 })).toBe('0.0003');
    expect(costOf(usage(21, 13), { input: 300, output: 1500 })).toBe('0.0258'); // the README's example
    expect(costOf(usage(0, 0), { input: 300 })).toBe('0');
    expect(costOf(usage(100, 0, 1000, 1000), { input: 1000, cacheRead: 100, cacheWrite5m: 1250 })).toBe('1.45');
    expect(costOf(usage(5, 5), undefined)).toBe('0');
    expect(costOf(usage(1, 0), { input: '0.000001' })).toBe('0.000000000001'); // the smallest price on the smallest usage
    expect(costOf(usage(3, 0), { input: 0.25 })).toBe('0.00000075');
  });

  it('holds the cost rounded up to a whole unit (an estimate has no cache figures)', () => {
    expect(holdFor(usage(1, 0), { input: 300 })).toBe(1);
    expect(holdFor(usage(100, 0, 1000, 1000), { input: 1000, cacheRead: 100, cacheWrite5m: 1250 })).toBe(2);
    expect(holdFor({ inputTokens: 1000, outputTokens: 2000 }, { input: 3000, output: 15000, cacheRead: 1 })).toBe(33);
    expect(holdFor(usage(9_007_199_254_740, 0), { input: 1 })).toBe(9_007_200); // 9,007,199.25474, rounded up
    expect(holdFor(usage(5, 5), undefined)).toBe(0);
  });

  it('is exact on both sides of 2^53 (Number fast path and BigInt path), for prices with 6 decimals', () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 1_000_000_000 })), { minLength: 4, maxLength: 4 }),
      fc.array(fc.oneof(fc.integer({ min: 0, max: 20_000_000 }), fc.integer({ min: 0, max: 1_000_000_000_000_000 })), { minLength: 4, maxLength: 4 }),
      ([a = 0, b = 0, c = 0, d = 0], [e = 0, f = 0, g = 0, h = 0]) => {
        const u = usage(a, b, c, d);
        const micros = { input: e, output: f, cacheRead: g, cacheWrite: h };
        const price = (m: number): string => fromPico(BigInt(m) * 1_000_000n); // micro-units as a decimal of minor units
        const p = { input: price(e), output: price(f), cacheRead: price(g), cacheWrite5m: price(h) };
        const pico = exactPico(u, micros);
        expect(costOf(u, p)).toBe(fromPico(pico));
        expect(holdFor(u, p)).toBe(Number((pico + 999_999_999_999n) / 1_000_000_000_000n));
      },
    ), { numRuns: 2000 });
  });

  it('accepts prices as numbers or decimal strings with at most 6 decimals, and names the fix otherwise', () => {
    expect(pricingProblem({ input: '0.125', output: 0.25, cacheRead: 3 })).toBeUndefined();
    for (const bad of [-1, '1e-7', 0.0000001, '0.1234567', 'abc', Number.NaN, 1_000_000_001, '', ' 1']) {
      expect(pricingProblem({ input: bad })).toMatch(/pricing.input must be a non-negative number of minor units per million tokens, at most 1000000000 and with at most 6 decimals/);
    }
    const upstream = { kind: 'messages' as const, create: async () => { throw new Error('unused'); }, stream: async function* () { /* unused */ } };
    expect(() => createCatalog([{ id: 'm', capability: 'llm', upstream: upstream as never, pricing: { input: '0.1234567' } }])).toThrow(refused('ERR_MGW_CATALOG_INVALID_MODEL', /models\[0\]: "m": pricing.input must be/));
  });
});

describe('the search-unit price', () => {
  it('bills search units per thousand, has no default (null in effect: flagged, never billed), and names the fix for its plural', () => {
    const units = { searchUnits: 3 };
    expect(costOf(units, { input: 0, searchUnit: 200 })).toBe('0.6'); // 200 per 1,000 search units
    expect(costOf(units, { input: 5 })).toBe('0');
    expect(pricesInEffect({ input: 5 }, 'openai')).toMatchObject({ searchUnit: null, webSearch: '0' });
    expect(pricesInEffect({ input: 5, searchUnit: '0.5' })).toMatchObject({ searchUnit: '0.5' });
    expect(unpricedFigures({ searchUnits: 1, inputTokens: 4 }, { input: 5 })).toEqual(['searchUnits']);
    expect(unpricedFigures({ searchUnits: 1 }, { input: 5, searchUnit: 0 })).toEqual([]);
    expect(unpricedFigures({ searchUnits: 0 }, undefined)).toEqual([]);
    expect(pricingProblem({ input: 0, searchUnits: 200 } as never)).toBe('pricing.searchUnits is not a price; use pricing.searchUnit (prices: input, cacheRead, cacheWrite5m, cacheWrite1h, output, webSearch, searchUnit)');
    expect(pricingProblem({ input: 0, searchUnit: 1_000_001 })).toMatch(/^pricing.searchUnit must be a non-negative number of minor units per 1,000 search units, at most 1000000 /);
    expect(holdFor(defaultEstimator({ query: 'q', documents: Array.from({ length: 150 }, () => 'd') }), { input: 0, searchUnit: 2_000 })).toBe(4); // 2 units at 2 each
  });
});

describe('carryCharge', () => {
  it('charges whole units of carry + cost and carries the rest', () => {
    expect(carryCharge('0', '0.0258')).toEqual({ charge: 0, carry: '0.0258' });
    expect(carryCharge('0.99', '0.0258')).toEqual({ charge: 1, carry: '0.0158' });
    expect(carryCharge('0.5', '33.5')).toEqual({ charge: 34, carry: '0' });
    expect(() => carryCharge('1', '0')).toThrow(/carry must be a decimal below 1 minor unit/);
    expect(() => carryCharge('0', '-1')).toThrow(/cost must be a non-negative decimal/);
    expect(() => carryCharge('0', '0.0000000000001')).toThrow(/at most 12 decimals/);
  });

  it('over any sequence, charges the exact total rounded down: never more, and less by under one unit', () => {
    fc.assert(fc.property(fc.array(fc.bigInt({ min: 0n, max: 10n ** 15n }), { maxLength: 2000 }), (costs) => {
      let carry = '0';
      let charged = 0;
      for (const pico of costs) {
        const out = carryCharge(carry, fromPico(pico));
        charged += out.charge;
        carry = out.carry;
      }
      const total = costs.reduce((a, b) => a + b, 0n);
      expect(BigInt(charged)).toBe(total / 1_000_000_000_000n);
      expect(toPico(carry)).toBe(total % 1_000_000_000_000n);
    }), { numRuns: 200 });
  });
});

describe('defaultEstimator', () => {
  it('counts characters / 3 plus per-message overhead, and max_tokens as output', () => {
    expect(defaultEstimator({ system: 'abc', messages: [{ role: 'user', content: 'abcdef' }], max_tokens: 10 })).toEqual({ inputTokens: 3 + 8, outputTokens: 10 });
    expect(defaultEstimator({ messages: [{ content: [{ type: 'text', text: 'abc' }] }], max_completion_tokens: 4 })).toEqual({ inputTokens: 9, outputTokens: 4 });
    expect(defaultEstimator({ query: 'ab', documents: ['abcd', 'ef'] })).toEqual({ inputTokens: 4, outputTokens: 0, searchUnits: 1 });
    expect(defaultEstimator({ query: 'q', documents: Array.from({ length: 201 }, () => 'd') }).searchUnits).toBe(3); // one per 100 documents begun
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
    n.report({ inputTokens: undefined, outputTokens: null as unknown as number }); // left out: not reported
    n.complete();
    expect(n.snapshot().provenance).toBe('none');
  });

  // 1e400 reads as Infinity: like any figure not believed, it is flagged and told as it came, never read as "not reported".
  it.each([
    [Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER, 'outputTokens Infinity (not finite)'],
    [Number.NEGATIVE_INFINITY, 0, 'outputTokens -Infinity (negative)'],
    [12.5, 12, 'outputTokens 12.5 (not a whole number)'],
    [-3, 0, 'outputTokens -3 (negative)'],
    [1e20, Number.MAX_SAFE_INTEGER, 'outputTokens 100000000000000000000 (beyond 2^53)'],
    [2e9, 2e9, 'outputTokens 2000000000 (over 1000000000)'],
    [Number.NaN, 0, 'outputTokens NaN (not a number)'],
    ['12', 0, 'outputTokens "12" (not a number)'],
    [{}, 0, 'outputTokens object (not a number)'],
  ])('a figure of %p is implausible, bounded to %p and observed as %p', (value, bounded, observed) => {
    const t = new UsageTracker();
    t.report({ inputTokens: 10, outputTokens: value as number });
    t.complete();
    expect(t.snapshot()).toMatchObject({ inputTokens: 10, outputTokens: bounded, provenance: 'implausible' });
    expect(t.observed()).toBe(`implausible usage: ${observed}`);
  });

  it('output over max_tokens is implausible, named so; believed figures leave nothing observed', () => {
    const t = new UsageTracker();
    t.boundOutput(64);
    t.report({ inputTokens: 10, outputTokens: 64 });
    expect(t.observed()).toBeUndefined();
    t.report({ outputTokens: 65 });
    expect(t.snapshot()).toMatchObject({ outputTokens: 65, provenance: 'implausible' });
    expect(t.observed()).toBe('implausible usage: outputTokens 65 (over max_tokens 64)');
  });
});

describe('every figure of the table is read, priced and counted (the hot paths write them out by name)', () => {
  const prices: Record<string, number> = { input: 1, cacheRead: 2, cacheWrite5m: 3, cacheWrite1h: 4, output: 5, webSearch: 6, searchUnit: 7 };
  it.each(FIGURE_NAMES.map((name) => [name]))('%s', (name) => {
    const figure = USAGE_FIGURES[name];
    const tracker = new UsageTracker();
    tracker.report({ [name]: 7, inputTokens: name === 'inputTokens' ? 7 : 0 });
    tracker.complete();
    const usage = tracker.snapshot();
    expect(usage[name]).toBe(7);
    const pricing = { input: 0, ...Object.fromEntries(PRICE_FIELDS.map((f) => [f, f === figure.price ? prices[f] : 0])) } as Pricing;
    // 7 units at its price per `per` units.
    const expected = fromPico(BigInt(7 * (prices[figure.price] as number) * 1_000_000 / figure.per) * 1_000_000n);
    expect(costOf(usage, pricing)).toBe(expected);
    expect(tokensOf(usage, 'input') + tokensOf(usage, 'output')).toBe(figure.tokens === null ? 0 : 7);
    expect(weightedTokens(usage, undefined)).toBe(figure.tokens === null ? 0 : 7);
  });
});

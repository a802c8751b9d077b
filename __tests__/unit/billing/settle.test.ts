/** lib/billing/settle.ts: the billing rule decides from plain facts, and the format a request is priced by. */
import { decide, servedBy, type BillingFacts } from '../../../lib/billing/settle';
import type { Usage } from '../../../lib';

const usage = (provenance: Usage['provenance'], input = 1_000, output = 500): Usage => ({
  inputTokens: input, cacheReadInputTokens: 0, cacheWrite5mInputTokens: 0, cacheWrite1hInputTokens: 0, outputTokens: output, webSearchRequests: 0, searchUnits: 0, provenance,
});
// One minor unit per input token and two per output token.
const facts = (over: Partial<BillingFacts>): BillingFacts => ({ usage: usage('confirmed'), pricing: { input: 1_000_000, output: 2_000_000 }, format: 'anthropic', invalidAnswer: false, answered: true, ...over });

describe('decide', () => {
  it.each([
    ['confirmed', true, '2000', 'billed'],
    ['partial', true, '2000', 'needs_review'],
    ['units_only', true, '0', 'needs_review'],
    ['implausible', true, '0', 'needs_review'],
    ['none', true, '0', 'needs_review'],
    ['none', false, '0', 'not_billed'],
  ] as const)('%s usage (answered: %s) costs %s, %s', (provenance, answered, cost, billingStatus) => {
    expect(decide(facts({ usage: usage(provenance), answered }))).toEqual({ usage: usage(provenance), cost, billingStatus });
  });

  it('bills search units alone at the model\'s searchUnit price, and flags them without one (never a guess)', () => {
    const units: Usage = { ...usage('units_only', 0, 0), searchUnits: 3 };
    expect(decide(facts({ usage: units, pricing: { input: 0, searchUnit: 200 } }))).toEqual({ usage: units, cost: '0.6', billingStatus: 'billed' });
    expect(decide(facts({ usage: units, pricing: { input: 0, searchUnit: 0 } }))).toEqual({ usage: units, cost: '0', billingStatus: 'billed' });
    expect(decide(facts({ usage: units, pricing: { input: 5 } }))).toEqual({ usage: units, cost: '0', billingStatus: 'needs_review' });
    expect(decide(facts({ usage: units, pricing: undefined }))).toEqual({ usage: units, cost: '0', billingStatus: 'needs_review' });
    const both: Usage = { ...usage('confirmed', 42, 0), searchUnits: 1 };
    expect(decide(facts({ usage: both, pricing: { input: 1_000_000, searchUnit: 2_000 } })).cost).toBe('44'); // each figure at its price
  });

  it('never bills an answer refused as invalid, keeping its usage', () => {
    expect(decide(facts({ invalidAnswer: true }))).toEqual({ usage: usage('confirmed'), cost: '0', billingStatus: 'not_billed' });
  });

  it('bills a free model 0', () => {
    expect(decide(facts({ pricing: undefined })).cost).toBe('0');
  });

  it('prices cache reads by the format it is given', () => {
    const read = { ...usage('confirmed', 0, 0), cacheReadInputTokens: 1_000 };
    expect(decide(facts({ usage: read, format: 'anthropic' })).cost).toBe('100'); // 0.1x input
    expect(decide(facts({ usage: read, format: 'openai' })).cost).toBe('500'); // 0.5x input
  });
});

describe('servedBy', () => {
  const model = { pricing: { input: 1 }, format: 'anthropic' as const };
  const own = { input: 7 };

  it("is the serving attempt's format and own prices, else the model's", () => {
    expect(servedBy([], model)).toBe(model);
    expect(servedBy([{ upstream: 'a', ok: true, ms: 1, format: 'openai' }, { upstream: 'b', ok: false, ms: 1, format: 'anthropic', pricing: own }], model)).toEqual({ pricing: model.pricing, format: 'openai' });
    expect(servedBy([{ upstream: 'a', ok: false, ms: 1, format: 'anthropic' }, { upstream: 'b', ok: true, ms: 1, format: 'openai', pricing: own }], model)).toEqual({ pricing: own, format: 'openai' });
    expect(servedBy([{ upstream: 'a', ok: true, ms: 1 }], { pricing: undefined, format: undefined })).toEqual({ pricing: undefined, format: undefined });
  });

  it('reads a nested group innermost first: the member that served, then the group member around it', () => {
    const outer = { input: 9 };
    // The inner member (no prices of its own) records its attempt before the outer group's member (with prices) does.
    expect(servedBy([{ upstream: 'inner', ok: true, ms: 1, format: 'openai' }, { upstream: 'group', ok: true, ms: 1, pricing: outer }], model)).toEqual({ pricing: outer, format: 'openai' });
    expect(servedBy([{ upstream: 'inner', ok: true, ms: 1, format: 'openai', pricing: own }, { upstream: 'group', ok: true, ms: 1, pricing: outer }], model)).toEqual({ pricing: own, format: 'openai' });
  });
});

/** lib/schemas/shapes.ts: the shapes written once (limits, billing statuses, capabilities) and what is derived from them. */
import { compileSchema, describeError } from '../../../lib/schemas/ajv';
import { BILLING_STATUSES, billingStatusSchema, CAPABILITIES, capabilitySchema, limitsSchema, SETTLE_OUTCOMES } from '../../../lib/schemas/shapes';

describe('the shapes', () => {
  it('takes limits as non-negative integers and names an unknown one', () => {
    const check = compileSchema(limitsSchema);
    expect(check({ rpm: 10, tpm: 0, concurrency: 2 })).toBe(true);
    expect(check({ rpm: -1 })).toBe(false);
    expect(check({ rps: 1 })).toBe(false);
    expect(describeError(check.errors?.[0] as never)).toBe('rps: Extra inputs are not permitted');
  });

  it('derives the settle outcomes and the enums from the lists', () => {
    expect(SETTLE_OUTCOMES).toEqual(BILLING_STATUSES.filter((s) => s !== 'waived'));
    expect(compileSchema(billingStatusSchema)('waived')).toBe(true);
    expect(compileSchema(billingStatusSchema)('paid')).toBe(false);
    expect(CAPABILITIES.every((c) => compileSchema(capabilitySchema)(c))).toBe(true);
  });
});

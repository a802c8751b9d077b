/** A route's inputs read by its row's schemas: query text coerced by the declared type, times by timeOf, then the schema's checks; errors name the field. */
import type { TObject, TSchema } from '@sinclair/typebox';
import { GatewayError } from '../../../lib';
import { bodyReader, queryReader } from '../../../lib/admin/inputs';
import { ADMIN_ROUTES } from '../../../lib/admin/routes';

const row = (method: string, path: string) => ADMIN_ROUTES.find((r) => r.method === method && r.path === path) as { query?: TObject; body?: TSchema };
const requests = queryReader<Record<string, unknown>>(row('get', '/requests').query as TObject);
const series = queryReader<Record<string, unknown>>(row('get', '/stats/requests').query as TObject);
const reviews = queryReader<Record<string, unknown>>(row('get', '/reviews').query as TObject);
const rotate = bodyReader<Record<string, unknown>>(row('post', '/keys/{keyId}/rotate').body as TSchema);
const FORMS = 'must be epoch milliseconds (1795514400000) or an ISO 8601 date-time with its offset (2026-11-24T10:00:00Z) or date (2026-11-24, UTC)';

/** The message of the 400 `read` throws. */
function refusal(read: () => unknown): string {
  try {
    read();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('invalid_request_error');
    return (err as GatewayError).message;
  }
  throw new Error('not refused');
}

describe('query parameters, read by their schema', () => {
  it('coerces each by its declared type and leaves out what the schema does not name', () => {
    expect(requests({ status: '200', limit: '-3', from: '2026-11-24', to: '1795514400000', billingStatus: 'waived', callerId: 'acme', other: 'x' }))
      .toEqual({ status: 200, limit: -3, from: Date.UTC(2026, 10, 24), to: 1795514400000, billingStatus: 'waived', callerId: 'acme' });
    expect(reviews({ open: 'false' })).toEqual({ open: false });
    expect(requests({})).toEqual({});
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an integer in words', { limit: 'abc' }, 'limit: must be an integer'],
    ['an integer with an exponent', { status: '2e2' }, 'status: must be an integer'],
    ['an integer beyond the safe ones', { limit: '9999999999999999' }, 'limit: must be an integer'],
    ['a repeated parameter', { callerId: ['a', 'b'] }, 'callerId: must be a string of 1 to 512 characters'],
    ['an empty one', { model: '' }, 'model: must be a string of 1 to 512 characters'],
    ['a long one', { after: 'x'.repeat(513) }, 'after: must be a string of 1 to 512 characters'],
    ['a time that is no date', { from: '2026-02-30' }, `from: ${FORMS}`],
    ['a time without its offset', { to: '2026-11-24T10:00:00' }, `to: ${FORMS}`],
  ])('%s is a 400 naming the field', (_name, query, message) => {
    expect(refusal(() => requests(query as never))).toBe(message);
  });

  it('then checks what the schema says: an enum, a required parameter, a minimum', () => {
    expect(refusal(() => requests({ billingStatus: 'maybe' }))).toBe('billingStatus: must be one of "billed", "needs_review", "not_billed", "waived"');
    expect(refusal(() => series({ from: '0', bucketMs: '60000' }))).toBe('to: Field required');
    expect(refusal(() => series({ from: '0', to: '1', bucketMs: '1000' }))).toBe('bucketMs: must be >= 60000');
    expect(refusal(() => reviews({ open: 'yes' }))).toBe('open: must be true or false');
  });
});

describe('a body with a time', () => {
  it('reads the time as epoch milliseconds, its text or its number', () => {
    expect(rotate({ oldKeyExpiresAt: '2100-01-01T00:00:00Z' })).toEqual({ oldKeyExpiresAt: Date.UTC(2100, 0, 1) });
    expect(rotate({ oldKeyExpiresAt: 5 })).toEqual({ oldKeyExpiresAt: 5 });
    expect(rotate({})).toEqual({});
  });

  it('refuses a time of another type, a time in words and a field it does not take, naming each', () => {
    expect(refusal(() => rotate({ oldKeyExpiresAt: true }))).toBe('oldKeyExpiresAt: must be integer or string');
    expect(refusal(() => rotate({ oldKeyExpiresAt: 'next week' }))).toBe(`oldKeyExpiresAt: ${FORMS}`);
    expect(refusal(() => rotate({ oldKeyExpiresAt: -1 }))).toBe(`oldKeyExpiresAt: ${FORMS}`);
    expect(refusal(() => rotate({ grace: 60 }))).toBe('grace: Extra inputs are not permitted');
  });
});

/** lib/admin/schemas.ts: the admin bodies as PUT /models reads them: a minimal model passes, a bad field is named; times in two forms. */
import { GatewayError } from '../../../lib';
import { bodyReader, queryReader } from '../../../lib/admin/inputs';
import { ISO_8601_PATTERN, modelsBodySchema, timeSchema } from '../../../lib/admin/schemas';
import { Type } from '@sinclair/typebox';

const models = bodyReader<{ models: unknown[] }>(modelsBodySchema);

function messageOf(read: () => unknown): string {
  try {
    read();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return (err as GatewayError).message;
  }
  throw new Error('not refused');
}

describe('the admin schemas', () => {
  it('take a minimal model', () => {
    const body = { models: [{ id: 'm', capability: 'llm', upstream: 'anthropic' }] };
    expect(models(body)).toEqual(body);
  });

  it('name the field of a bad model', () => {
    expect(messageOf(() => models({ models: [] }))).toBe('models: must have at least 1 item(s)');
    expect(messageOf(() => models({ models: [{ id: 'm', capability: 'chat', upstream: 'a' }] }))).toBe('models.0.capability: must be one of "llm", "rerank"');
    expect(messageOf(() => models({ models: [{ id: 'm', capability: 'llm', upstream: 'a', colour: 'red' }] }))).toBe('models.0.colour: Extra inputs are not permitted');
  });

  it('read a time as epoch ms or ISO 8601', () => {
    const read = queryReader<{ at?: number }>(Type.Object({ at: Type.Optional(timeSchema) }));
    expect(read({ at: '1795514400000' })).toEqual({ at: 1795514400000 });
    expect(read({ at: '2026-11-24T10:00:00Z' })).toEqual({ at: Date.UTC(2026, 10, 24, 10) });
    expect(new RegExp(ISO_8601_PATTERN).test('2026-11-24')).toBe(true);
    expect(new RegExp(ISO_8601_PATTERN).test('24/11/2026')).toBe(false);
  });
});

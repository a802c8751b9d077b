/** lib/middleware/authenticate.ts: the caller found by x-api-key or Bearer; every refusal a 401 that never echoes the key. */
import request from 'supertest';
import { authenticate, type GatewayStore } from '../../../lib';
import { refused } from '../../helpers/config-error';
import { stageApp, storeWithCaller } from './stage-app';

const app = stageApp([authenticate({ store: storeWithCaller() })]);

describe('authenticate()', () => {
  it.each([
    ['x-api-key', { 'x-api-key': 'sk-good' }],
    ['Authorization: Bearer', { authorization: 'Bearer sk-good' }],
    ['both, agreeing', { 'x-api-key': 'sk-good', authorization: 'bearer sk-good' }],
  ])('admits a known key sent as %s and puts the caller on the context', async (_how, headers) => {
    const res = await request(app).post('/v1/messages').set(headers).send({});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ reached: true, caller: 'acct_1' });
  });

  it.each([
    ['no key', {}, 'x-api-key header or Authorization: Bearer is required.'],
    ['an unknown key', { 'x-api-key': 'sk-nobody' }, 'invalid x-api-key'],
    ['an unknown bearer key', { authorization: 'Bearer sk-nobody' }, 'authorization: invalid bearer key'],
    ['a disabled key', { 'x-api-key': 'sk-off' }, 'invalid x-api-key'],
    ['a malformed Authorization', { authorization: 'Basic abc' }, 'authorization: expected "Bearer <key>".'],
    ['two different keys', { 'x-api-key': 'sk-good', authorization: 'Bearer sk-other' }, 'x-api-key and authorization carry different keys.'],
    ['a key over 512 characters', { 'x-api-key': 'k'.repeat(513) }, 'invalid x-api-key'],
  ])('refuses %s with 401 authentication_error', async (_case, headers, message) => {
    const res = await request(app).post('/v1/messages').set(headers).send({});
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'authentication_error', message } });
    expect(res.body.request_id).toBe(res.headers['request-id']);
    expect(JSON.stringify(res.body)).not.toContain('sk-nobody');
  });

  it('answers 500 api_error when the key store fails, without the store text', async () => {
    const failing = { findCaller: () => Promise.reject(new Error('db down: secret')) } as unknown as GatewayStore;
    const res = await request(stageApp([authenticate({ store: failing })])).post('/v1/messages').set('x-api-key', 'sk-good').send({});
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({ type: 'api_error', message: 'The key store is unavailable; retry later.' });
  });

  it('refuses a store without findCaller at construction, by code', () => {
    expect(() => authenticate({ store: {} as GatewayStore })).toThrow(refused('ERR_MGW_STORE_CONTRACT'));
  });
});

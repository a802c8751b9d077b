/** lib/middleware/limits.ts: rpm, concurrency and tpm per caller; 429 with retry-after; the slot given back at the end. */
import request from 'supertest';
import type { RequestHandler } from 'express';
import { authenticate, limits, MemoryStore } from '../../../lib';
import { refused } from '../../helpers/config-error';
import { stageApp } from './stage-app';

function app(callerLimits: { rpm?: number; concurrency?: number; tpm?: number }, extra: RequestHandler[] = []) {
  const store = new MemoryStore();
  store.addKey('sk-good', { id: 'acct_1', limits: callerLimits });
  return stageApp([authenticate({ store }), limits(), ...extra]);
}
const post = (a: ReturnType<typeof app>, body: object = {}) => request(a).post('/v1/messages').set('x-api-key', 'sk-good').send(body);

describe('limits()', () => {
  it('admits up to rpm, then answers 429 rate_limit_error with retry-after', async () => {
    const a = app({ rpm: 2 });
    expect((await post(a)).status).toBe(200);
    expect((await post(a)).status).toBe(200);
    const third = await post(a);
    expect(third.status).toBe(429);
    expect(third.body.error.type).toBe('rate_limit_error');
    expect(third.body.error.message).toMatch(/^Rate limit exceeded \(rpm\); retry after \d+ s\.$/);
    expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('refuses a request whose estimate alone is over tpm', async () => {
    const res = await post(app({ tpm: 10 }), { max_tokens: 1000, messages: [] });
    expect(res.status).toBe(429);
    expect(res.body.error.message).toMatch(/more than the limit of 10 tokens per minute/);
  });

  it('holds one concurrency slot per request in flight and gives it back when the request ends', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let arrived: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => { arrived = resolve; });
    let first = true;
    const wait: RequestHandler = (_req, _res, next) => {
      if (!first) return next();
      first = false;
      arrived();
      void held.then(() => next());
    };
    const a = app({ concurrency: 1 }, [wait]);
    const slow = post(a).then((r) => r);
    await inside;
    const second = await post(a);
    expect(second.status).toBe(429);
    expect(second.body.error.message).toBe('Rate limit exceeded (concurrency); retry after 1 s.');
    release();
    expect((await slow).status).toBe(200);
    expect((await post(a)).status).toBe(200); // the slot came back
  });

  it('needs authenticate() before it', async () => {
    const res = await request(stageApp([limits()])).post('/v1/messages').send({});
    expect(res.status).toBe(500);
    expect(res.body.error.type).toBe('api_error');
  });

  it('checks its defaults at construction, by code', () => {
    expect(() => limits({ defaults: { rpm: -1 } })).toThrow(refused('ERR_MGW_INVALID_INTEGER'));
    expect(() => limits({ defaults: { tpm: 1.5 } })).toThrow(refused('ERR_MGW_INVALID_INTEGER'));
  });
});

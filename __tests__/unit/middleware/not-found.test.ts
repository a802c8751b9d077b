/** lib/middleware/not-found.ts: 404 for a path not served, 405 with `allow` for a served path asked with another method. */
import request from 'supertest';
import { methodNotAllowed, notFound } from '../../../lib';
import { refused } from '../../helpers/config-error';
import { stageApp } from './stage-app';

describe('notFound() and methodNotAllowed()', () => {
  it('answers 404 not_found_error naming the method and path, without the query', async () => {
    const res = await request(stageApp([notFound()])).post('/v1/nothing?x=1').send({});
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ type: 'not_found_error', message: 'POST /v1/nothing was not found' });
  });

  it('answers 405 with allow listing the methods', async () => {
    const res = await request(stageApp([methodNotAllowed(['POST'])])).get('/v1/messages');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body.error.message).toBe('GET /v1/messages: this path takes POST');
  });

  it('needs the methods at construction, by code', () => {
    expect(() => methodNotAllowed([])).toThrow(refused('ERR_MGW_MISSING_OPTION'));
  });
});

/** lib/middleware/error-handler.ts: anything thrown answered in the one standard shape, with status, request id and retry headers. */
import express from 'express';
import request from 'supertest';
import { compose, errorHandler, GatewayError, requestId } from '../../../lib';
import { refused } from '../../helpers/config-error';

function failing(err: unknown, options: { format?: 'openai' | 'anthropic'; withId?: boolean } = {}) {
  const app = express();
  const thrower: express.RequestHandler = () => { throw err; };
  app.post('/v1/x', options.withId === false ? thrower : compose([requestId(), thrower]));
  app.use(errorHandler(options.format ? { format: options.format } : {}));
  return app;
}

describe('errorHandler()', () => {
  it("answers a GatewayError in Anthropic's shape, with its status, the request id and x-should-retry", async () => {
    const res = await request(failing(new GatewayError('rate_limit_error', 'slow down', { retryAfter: 3 }))).post('/v1/x').send({});
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' }, request_id: res.headers['request-id'] });
    expect(res.headers['retry-after']).toBe('3');
    expect(res.headers['x-should-retry']).toBe('true');
  });

  it("answers in OpenAI's shape when told", async () => {
    const res = await request(failing(new GatewayError('invalid_request_error', 'model: bad'), { format: 'openai' })).post('/v1/x').send({});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ message: 'model: bad', type: 'invalid_request_error' });
    expect(res.headers['x-should-retry']).toBe('false');
  });

  it('turns an unknown error into a generic 500 api_error, its text kept out of the answer', async () => {
    const res = await request(failing(new Error('secret internals'))).post('/v1/x').send({});
    expect(res.status).toBe(500);
    expect(res.body.error.type).toBe('api_error');
    expect(JSON.stringify(res.body)).not.toContain('secret internals');
  });

  it("answers a host body parser's error, with an id of its own", async () => {
    const app = express();
    app.use(express.json({ limit: 10 }));
    app.post('/v1/x', (_req, res) => { res.end(); });
    app.use(errorHandler());
    const res = await request(app).post('/v1/x').set('content-type', 'application/json').send(JSON.stringify({ text: 'x'.repeat(50) }));
    expect(res.status).toBe(413);
    expect(res.body.error.type).toBe('request_too_large');
    expect(res.headers['request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.body.request_id).toBe(res.headers['request-id']);
  });

  it('checks its format at construction, by code', () => {
    expect(() => errorHandler({ format: 'xml' as never })).toThrow(refused('ERR_MGW_INVALID_OPTION'));
  });
});

/** lib/middleware/request-id.ts: one id and context per request, its header, the endpoint label. */
import express from 'express';
import request from 'supertest';
import { compose, errorHandler, requestId } from '../../../lib';
import type { GatewayContext } from '../../../lib/context';
import { refused } from '../../helpers/config-error';

function app(options: Parameters<typeof requestId>[0] = {}, twice = false) {
  const a = express();
  const stage = requestId(options);
  a.use(compose([stage, ...(twice ? [requestId(options)] : []), (_req, res) => {
    const ctx = res.locals.gateway as GatewayContext;
    res.json({ id: ctx.requestId, endpoint: ctx.endpoint, format: ctx.wireFormat });
  }]));
  a.use(errorHandler());
  return a;
}

describe('requestId()', () => {
  it('gives a req_<32 hex> id, in the request-id header and on the context', async () => {
    const res = await request(app()).post('/v1/messages').send({});
    expect(res.body.id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.headers['request-id']).toBe(res.body.id);
  });

  it('gives each request its own id and never takes the client one', async () => {
    const a = app();
    const one = await request(a).post('/v1/messages').set('request-id', 'req_client').send({});
    const two = await request(a).post('/v1/messages').send({});
    expect(one.body.id).not.toBe('req_client');
    expect(one.body.id).not.toBe(two.body.id);
  });

  it('labels the endpoint by the path segment after /v1/ or /v2/, or as told', async () => {
    expect((await request(app()).post('/v2/rerank').send({})).body.endpoint).toBe('rerank');
    expect((await request(app({ endpoint: 'chat_completions', format: 'openai' })).post('/v1/chat/completions').send({})).body).toMatchObject({ endpoint: 'chat_completions', format: 'openai' });
  });

  it('keeps a context made earlier (one id per request however often it is met)', async () => {
    const res = await request(app({}, true)).post('/v1/messages').send({});
    expect(res.headers['request-id']).toBe(res.body.id);
  });

  it('uses the header it is given', async () => {
    const res = await request(app({ header: 'x-request-id' })).post('/v1/messages').send({});
    expect(res.headers['x-request-id']).toBe(res.body.id);
    expect(res.headers['request-id']).toBeUndefined();
  });

  it('checks its options, by code', () => {
    expect(() => requestId({ format: 'xml' as never })).toThrow(refused('ERR_MGW_INVALID_OPTION'));
    expect(() => requestId({ header: '' })).toThrow(refused('ERR_MGW_INVALID_OPTION'));
  });
});

/** lib/middleware/json-body.ts: JSON object bodies only; every parse failure in the standard error shape. */
import request from 'supertest';
import { jsonBody } from '../../../lib';
import { bodyParserError } from '../../../lib/middleware/json-body';
import { refused } from '../../helpers/config-error';
import { stageApp } from './stage-app';

const app = stageApp([jsonBody({ limit: 100 })], { json: false });
const post = (body: string, type = 'application/json') => request(app).post('/v1/messages').set('content-type', type).send(body);

describe('jsonBody()', () => {
  it('parses a JSON object body', async () => {
    const res = await post('{"model":"m"}');
    expect(res.status).toBe(200);
    expect(res.body.body).toEqual({ model: 'm' });
  });

  it.each([
    ['malformed JSON', '{"model":', 'application/json', 400, 'invalid_request_error', 'Request body is not valid JSON.'],
    ['a JSON array', '[1]', 'application/json', 400, 'invalid_request_error', 'Request body must be a JSON object.'],
    ['another content type', '{}', 'text/plain', 400, 'invalid_request_error', 'content-type: must be application/json'],
    ['a body over the limit', JSON.stringify({ text: 'x'.repeat(200) }), 'application/json', 413, 'request_too_large', 'Request body is larger than the limit of 100.'],
  ])('refuses %s', async (_case, body, type, status, code, message) => {
    const res = await post(body, type);
    expect(res.status).toBe(status);
    expect(res.body.error).toEqual({ type: code, message });
  });

  it('takes a charset parameter on application/json', async () => {
    expect((await post('{}', 'application/json; charset=utf-8')).status).toBe(200);
  });

  it("turns a host parser's errors into GatewayErrors and leaves other errors alone", () => {
    expect(bodyParserError({ type: 'entity.too.large', message: 'too big' }, '1kb')).toMatchObject({ code: 'request_too_large', message: 'Request body is larger than the limit of 1kb.' });
    expect(bodyParserError({ type: 'entity.parse.failed', message: 'bad' })).toMatchObject({ code: 'invalid_request_error' });
    expect(bodyParserError(new Error('other'))).toBeUndefined();
  });

  it('refuses a limit that is no size, by code', () => {
    expect(() => jsonBody({ limit: 'huge' })).toThrow(refused('ERR_MGW_INVALID_INTEGER'));
    expect(() => jsonBody({ limit: 0 })).toThrow(refused('ERR_MGW_INVALID_INTEGER'));
  });
});

/** lib/middleware/compat-version.ts: the version header, required with x-api-key, checked against the accepted dates. */
import request from 'supertest';
import { authenticate, compatVersion } from '../../../lib';
import { DEFAULT_VERSIONS } from '../../../lib/middleware/compat-version';
import { refused } from '../../helpers/config-error';
import { stageApp, storeWithCaller } from './stage-app';

const store = storeWithCaller();
const app = stageApp([authenticate({ store }), compatVersion({ versions: ['2023-06-01'] })]);

describe('compatVersion()', () => {
  it('accepts a known anthropic-version or compat-version', async () => {
    expect((await request(app).post('/v1/messages').set({ 'x-api-key': 'sk-good', 'anthropic-version': '2023-06-01' }).send({})).status).toBe(200);
    expect((await request(app).post('/v1/messages').set({ 'x-api-key': 'sk-good', 'compat-version': '2023-06-01' }).send({})).status).toBe(200);
  });

  it('requires the header with x-api-key, not with Bearer', async () => {
    const missing = await request(app).post('/v1/messages').set({ 'x-api-key': 'sk-good' }).send({});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe('anthropic-version: header is required (or compat-version); supported: 2023-06-01');
    expect((await request(app).post('/v1/messages').set({ authorization: 'Bearer sk-good' }).send({})).status).toBe(200);
  });

  it('requires it with Bearer too under alwaysRequired', async () => {
    const strict = stageApp([authenticate({ store }), compatVersion({ alwaysRequired: true })]);
    expect((await request(strict).post('/v1/messages').set({ authorization: 'Bearer sk-good' }).send({})).status).toBe(400);
  });

  it('names an unknown version and lists the supported ones', async () => {
    const res = await request(app).post('/v1/messages').set({ 'x-api-key': 'sk-good', 'anthropic-version': '1999-01-01' }).send({});
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ type: 'invalid_request_error', message: 'anthropic-version: "1999-01-01" is not a valid version; supported: 2023-06-01' });
  });

  it('refuses the two headers disagreeing', async () => {
    const res = await request(app).post('/v1/messages').set({ 'x-api-key': 'sk-good', 'anthropic-version': '2023-06-01', 'compat-version': '2023-01-01' }).send({});
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('disagree');
  });

  it('checks its versions at construction, by code; the default list is dates', () => {
    expect(() => compatVersion({ versions: [] })).toThrow(refused('ERR_MGW_INVALID_OPTION'));
    expect(() => compatVersion({ versions: ['June 2023'] })).toThrow(refused('ERR_MGW_INVALID_OPTION'));
    expect(DEFAULT_VERSIONS.length).toBeGreaterThan(0);
    expect(DEFAULT_VERSIONS.every((v) => /^\d{4}-\d{2}-\d{2}$/.test(v))).toBe(true);
  });
});

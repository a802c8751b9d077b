/** lib/middleware/resolve-model.ts: the model looked up once, by name and capability, within the caller's allow-list. */
import request from 'supertest';
import { authenticate, cohereAdapter, resolveModel, type ModelEntry } from '../../../lib';
import { refused } from '../../helpers/config-error';
import { MODELS, stageApp, storeWithCaller } from './stage-app';

const rerank: ModelEntry = { id: 'ranker', capability: 'rerank', upstream: cohereAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'k' }), pricing: { input: 1 } };
const app = stageApp([authenticate({ store: storeWithCaller(1, ['plain', 'ranker']) }), resolveModel({ models: [...MODELS, rerank], capability: 'llm' })]);
const post = (body: object) => request(app).post('/v1/messages').set('x-api-key', 'sk-good').send(body);

describe('resolveModel()', () => {
  it('puts the model on the context', async () => {
    const res = await post({ model: 'plain' });
    expect(res.body).toMatchObject({ reached: true, model: 'plain' });
  });

  it.each([
    ['no model', {}, 400, 'invalid_request_error', 'model: Field required'],
    ['a model that is no string', { model: 7 }, 400, 'invalid_request_error', 'model: must be string'],
    ['an unknown model', { model: 'nope' }, 404, 'not_found_error', 'model: nope'],
    ["a model outside the caller's list", { model: 'agent' }, 404, 'not_found_error', 'model: agent'],
  ])('refuses %s', async (_case, body, status, type, message) => {
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(res.body.error).toEqual({ type, message });
  });

  it('names the capability a model of the wrong kind lacks', async () => {
    const res = await post({ model: 'ranker' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('model: "ranker" is a rerank model; this endpoint needs a model with capability "llm".');
  });

  it('checks its capability at construction, by code', () => {
    expect(() => resolveModel({ models: MODELS, capability: 'chat' as never })).toThrow(refused('ERR_MGW_INVALID_OPTION'));
    expect(() => resolveModel({ models: [], capability: 'llm' })).toThrow(refused('ERR_MGW_CATALOG_EMPTY'));
  });
});

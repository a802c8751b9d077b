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
    ['an unknown model', { model: 'nope' }, 404, 'not_found_error', 'model: "nope" was not found; GET /v1/models lists the models this key can use'],
    ["a model outside the caller's list", { model: 'agent' }, 404, 'not_found_error', 'model: "agent" was not found; GET /v1/models lists the models this key can use'],
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

describe('resolveModel() and the names a model answers to', () => {
  const named: ModelEntry = { ...(MODELS[0] as ModelEntry), id: 'opus', aliases: ['claude-opus-4-8[1m]'], patterns: ['claude-opus-*', 'claude-*'] };
  const other: ModelEntry = { ...(MODELS[0] as ModelEntry), id: 'sonnet', patterns: ['claude-sonnet-*'] };
  const namedApp = stageApp([authenticate({ store: storeWithCaller(1, ['opus']) }), resolveModel({ models: [named, other], capability: 'llm' })]);
  const ask = (model: string) => request(namedApp).post('/v1/messages').set('x-api-key', 'sk-good').send({ model });

  it('resolves the id, an alias, then the most specific pattern; the allow-list names the id and allows its other names', async () => {
    for (const name of ['opus', 'claude-opus-4-8[1m]', 'claude-opus-4-9', 'claude-haiku-4']) {
      expect((await ask(name)).body).toMatchObject({ reached: true, model: 'opus' });
    }
    // claude-sonnet-* is more specific than claude-*: it resolves to sonnet, which this key may not use.
    const refusedName = await ask('claude-sonnet-4-5');
    expect([refusedName.status, refusedName.body.error.message]).toEqual([404, 'model: "claude-sonnet-4-5" was not found; GET /v1/models lists the models this key can use']);
  });
});

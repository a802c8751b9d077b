/** lib/middleware/list-models.ts: the models a caller may use, in a page both SDKs read; one by id, or 404. */
import express from 'express';
import request from 'supertest';
import { authenticate, cohereAdapter, compose, errorHandler, listModels, requestId, type ModelEntry } from '../../../lib';
import { MODELS, stageApp, storeWithCaller } from './stage-app';

const rerank: ModelEntry = { id: 'ranker', capability: 'rerank', upstream: cohereAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'k' }), pricing: { input: 1 } };
const catalog = [...MODELS, rerank];
const app = stageApp([authenticate({ store: storeWithCaller(1, ['plain', 'agent', 'ranker']) }), listModels({ models: catalog })]);
const get = (path: string) => request(app).get(path).set('x-api-key', 'sk-good');

describe('listModels()', () => {
  it('lists only what the caller may use, in one page', async () => {
    const res = await get('/v1/models');
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: { id: string }) => m.id)).toEqual(['plain', 'agent', 'ranker']);
    expect(res.body).toMatchObject({ object: 'list', has_more: false, first_id: 'plain', last_id: 'ranker' });
  });

  it('gives each record both vendor shapes, and agent_ready only on an agent-ready model', async () => {
    const [plain, agent] = (await get('/v1/models')).body.data;
    expect(plain).toEqual({ id: 'plain', capability: 'llm', object: 'model', created: 1735689600, owned_by: 'gateway', type: 'model', display_name: 'plain', created_at: '2025-01-01T00:00:00Z' });
    expect(agent.agent_ready).toBe(true);
  });

  it('filters by capability and names a bad one', async () => {
    expect((await get('/v1/models?capability=rerank')).body.data.map((m: { id: string }) => m.id)).toEqual(['ranker']);
    const bad = await get('/v1/models?capability=chat');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('capability: must be "llm" or "rerank"');
  });
});

describe('listModels() with an id', () => {
  const one = stageApp([authenticate({ store: storeWithCaller(1, ['plain']) }), listModels({ models: catalog })]);
  it('answers one record, or 404 for a model unknown or not the caller\'s', async () => {
    // The stage reads req.params.id: mounted on a route with :id, as the router does.
    const a = express();
    a.get('/v1/models/:id', compose([requestId(), authenticate({ store: storeWithCaller(1, ['plain']) }), listModels({ models: catalog })]));
    a.use(errorHandler());
    const found = await request(a).get('/v1/models/plain').set('x-api-key', 'sk-good');
    expect(found.body).toMatchObject({ id: 'plain', object: 'model' });
    const hidden = await request(a).get('/v1/models/agent').set('x-api-key', 'sk-good');
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toEqual({ type: 'not_found_error', message: 'model: "agent" was not found; GET /v1/models lists the models this key can use' });
    expect((await request(one).get('/v1/models').set('x-api-key', 'sk-good')).body.data).toHaveLength(1);
  });
});

describe('listModels() and the names a model answers to', () => {
  const named: ModelEntry = { ...(MODELS[0] as ModelEntry), id: 'opus', aliases: ['claude-opus-4-8[1m]'], patterns: ['claude-opus-*'] };
  const a = express();
  a.get(['/v1/models', '/v1/models/:id'], compose([requestId(), authenticate({ store: storeWithCaller(1, ['opus']) }), listModels({ models: [named, ...MODELS] })]));
  a.use(errorHandler());
  const ask = (path: string) => request(a).get(path).set('x-api-key', 'sk-good');

  it('lists catalog ids only, and answers an alias or a matching name with its model\'s record', async () => {
    expect((await ask('/v1/models')).body.data.map((m: { id: string }) => m.id)).toEqual(['opus']);
    for (const name of ['opus', 'claude-opus-4-8[1m]', 'claude-opus-4-9']) {
      const res = await ask(`/v1/models/${encodeURIComponent(name)}`);
      expect([res.status, res.body.id]).toEqual([200, 'opus']);
    }
    expect((await ask('/v1/models/claude-sonnet-4-5')).status).toBe(404);
  });
});

/** lib/middleware/count-tokens.ts: the upstream's count for a model that can count; 400 or the marked estimate for one that cannot. */
import request from 'supertest';
import { anthropicAdapter, countTokens, openaiChatAdapter, resolveModel, validate, type ModelEntry } from '../../../lib';
import { COUNT_SOURCE_HEADER } from '../../../lib/middleware/count-tokens';
import { refused } from '../../helpers/config-error';
import { startAnthropicFake } from '../../helpers/fake-anthropic';
import { UPSTREAM_KEY, type FakeServer } from '../../helpers/fake-server';
import { stageApp } from './stage-app';

const chatOnly = openaiChatAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'k' });
const messages = [{ role: 'user', content: 'hello' }];

describe('countTokens()', () => {
  let fake: FakeServer;
  let app: ReturnType<typeof stageApp>;
  beforeAll(async () => {
    fake = await startAnthropicFake();
    const models: ModelEntry[] = [
      { id: 'claude', capability: 'llm', upstream: anthropicAdapter({ baseURL: fake.url, apiKey: UPSTREAM_KEY }), pricing: { input: 1 } },
      { id: 'gpt', capability: 'llm', upstream: chatOnly, pricing: { input: 1 } },
      { id: 'gpt-agent', capability: 'llm', upstream: chatOnly, pricing: { input: 1 }, agentReady: true },
    ];
    app = stageApp([resolveModel({ models, capability: 'llm' }), validate('count_tokens', { models }), countTokens({ estimator: () => ({ inputTokens: 42, outputTokens: 0 }) })]);
  });
  afterAll(() => fake.close());

  it("answers the upstream's own count, marked as the upstream's", async () => {
    const res = await request(app).post('/v1/count').send({ model: 'claude', messages });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ input_tokens: JSON.stringify(['', messages]).length }); // the fake counts characters
    expect(res.headers[COUNT_SOURCE_HEADER]).toBe('upstream');
  });

  it('refuses a V1 model whose upstream cannot count, naming it', async () => {
    const res = await request(app).post('/v1/count').send({ model: 'gpt', messages });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('model: "gpt" cannot count tokens (its upstream has no token-counting endpoint).');
  });

  it('answers the estimate for an agent-ready model that cannot count, marked as one', async () => {
    const res = await request(app).post('/v1/count').send({ model: 'gpt-agent', messages });
    expect(res.body).toEqual({ input_tokens: 42 });
    expect(res.headers[COUNT_SOURCE_HEADER]).toBe('estimate');
  });

  it('checks its options at construction, by code', () => {
    expect(() => countTokens({ estimator: 'chars' as never })).toThrow(refused('ERR_MGW_INVALID_OPTION'));
  });
});

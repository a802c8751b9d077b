/** GET /v1/models through the official SDKs: Anthropic 1.x (Bearer, 2026-10-21), Anthropic 0.x (x-api-key), OpenAI. */
import Anthropic from '@anthropic-ai/sdk';
import AnthropicV0 from 'anthropic-sdk-v0';
import OpenAI from 'openai';
import { cohereAdapter } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import type { FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels, startGateway, type RunningGateway } from '../helpers/gateway';

let upstream: FakeServer;
let gw: RunningGateway;
let key: string;
const seen: Array<Record<string, string | string[] | undefined>> = [];

beforeAll(async () => {
  upstream = await startAnthropicFake();
  gw = await startGateway({
    models: [
      ...llmModels(upstream.url, upstream.url, ['claude-a', 'claude-b', 'claude-hidden']),
      { id: 'rr', capability: 'rerank', upstream: cohereAdapter({ baseURL: upstream.url }), pricing: { input: 1 } },
    ],
  });
  gw.server.prependListener('request', (req) => seen.push({ ...req.headers }));
  ({ key } = addCaller(gw.store, { models: ['claude-a', 'claude-b', 'rr'] }));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

const expected = [['claude-a', 'llm'], ['claude-b', 'llm'], ['rr', 'rerank']];

it('the current Anthropic SDK (Bearer, 2026-10-21) lists the allowed models', async () => {
  const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
  const ids: unknown[][] = [];
  for await (const m of client.models.list()) ids.push([m.id, (m as unknown as { capability: string }).capability]);
  expect(ids).toEqual(expected);
  expect(seen.at(-1)?.authorization).toBe(`Bearer ${key}`);
  expect(seen.at(-1)?.['anthropic-version']).toBe('2026-10-21');
  const one = await client.models.retrieve('claude-b');
  expect(one.id).toBe('claude-b');
});

it('the 0.x Anthropic SDK (x-api-key, 2023-06-01) lists the allowed models', async () => {
  const client = new AnthropicV0({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
  const ids: unknown[][] = [];
  for await (const m of client.models.list()) ids.push([m.id, (m as unknown as { capability: string }).capability]);
  expect(ids).toEqual(expected);
  expect(seen.at(-1)?.['x-api-key']).toBe(key);
  expect(seen.at(-1)?.['anthropic-version']).toBe('2023-06-01');
});

it('the OpenAI SDK lists the allowed models', async () => {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const ids: unknown[][] = [];
  for await (const m of client.models.list()) ids.push([m.id, (m as unknown as { capability: string }).capability]);
  expect(ids).toEqual(expected);
});

it('a wrong key surfaces as the SDK AuthenticationError', async () => {
  const client = new Anthropic({ apiKey: 'sk-wrong', baseURL: gw.url, maxRetries: 0 });
  await expect(client.models.list()).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
});

/** The router mounted in an Express 4 host app: Messages JSON and SSE, models, errors. */
import express4 from 'express4';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRouter, MemoryStore } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import type { FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels } from '../helpers/gateway';

let upstream: FakeServer;
let server: http.Server;
let url: string;
const store = new MemoryStore();

beforeAll(async () => {
  upstream = await startAnthropicFake();
  const app = express4();
  app.use('/gw', createGatewayRouter({ store, models: llmModels(upstream.url, upstream.url, ['claude-json', 'claude-stream']) }) as never);
  server = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gw`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await upstream.close();
});

it('serves Messages (JSON and SSE), the model list and standard errors under Express 4', async () => {
  const { key } = addCaller(store);
  const headers = { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
  const post = (body: unknown) => fetch(`${url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = await post({ model: 'claude-json', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
  expect(json.status).toBe(200);
  expect(((await json.json()) as { model: string }).model).toBe('claude-json');
  const sse = await post({ model: 'claude-stream', max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'hi' }] });
  expect(await sse.text()).toMatch(/event: message_stop\n/);
  const models = await fetch(`${url}/v1/models/claude-stream`, { headers });
  expect(((await models.json()) as { id: string }).id).toBe('claude-stream');
  const bad = await fetch(`${url}/v1/messages`, { method: 'POST', headers, body: '{"model":' });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  const missing = await fetch(`${url}/v1/nothing`);
  expect(missing.status).toBe(404);
  expect(missing.headers.get('request-id')).toMatch(/^req_/);
});

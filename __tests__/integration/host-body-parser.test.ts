/** A host that parses JSON app-wide before the router: same validation, limits and error shape. */
import express from 'express';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { createGatewayRouter, errorHandler, MemoryStore } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import type { FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels } from '../helpers/gateway';

let upstream: FakeServer;
let server: http.Server;
let url: string;
let key: string;
const store = new MemoryStore();

beforeAll(async () => {
  upstream = await startAnthropicFake();
  const app = express();
  app.use(express.json({ limit: '10mb' })); // the host's own parser, for every route
  app.use(createGatewayRouter({ store, models: llmModels(upstream.url, upstream.url, ['claude-json']), bodyLimit: '2kb' }));
  app.use(errorHandler()); // the gateway's error shape for what fails before the router
  server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ({ key } = addCaller(store));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await upstream.close();
});

const post = (body: string): Promise<Response> => fetch(`${url}/v1/messages`, {
  method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body,
});

async function expectError(res: Response, status: number, type: string, message: RegExp): Promise<void> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { type: string; error: { type: string; message: string }; request_id: string };
  expect(body).toEqual({ type: 'error', error: { type, message: expect.stringMatching(message) }, request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/) });
  expect(res.headers.get('request-id')).toBe(body.request_id);
}

it('a body the host already parsed is served and validated as usual', async () => {
  const ok = await post(JSON.stringify({ model: 'claude-json', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }));
  expect(ok.status).toBe(200);
  const calls = upstream.calls;
  await expectError(await post(JSON.stringify({ model: 'claude-json', max_tokens: 16, tools: [], messages: [{ role: 'user', content: 'Hi' }] })), 400, 'invalid_request_error', /^tools: /);
  expect(upstream.calls).toBe(calls);
});

it('the router\'s own body limit still holds over the host\'s larger one', async () => {
  const calls = upstream.calls;
  const big = JSON.stringify({ model: 'claude-json', max_tokens: 16, messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
  await expectError(await post(big), 413, 'request_too_large', /limit of 2kb/);
  expect(upstream.calls).toBe(calls);
});

it('invalid JSON, refused by the host\'s parser, gets the standard shape from errorHandler() at app level', async () => {
  await expectError(await post('{"model": '), 400, 'invalid_request_error', /not valid JSON/);
});

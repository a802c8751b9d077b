/** The example host app: the gateway's /v1/chat/completions and /v1/messages share one balance, limits and log. */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { MemoryStore } from '../../lib';
import { buildSharedApp } from '../../examples/shared-chat-completions';
import { startOpenAIFake } from '../helpers/fake-openai';
import type { FakeServer } from '../helpers/fake-server';
import { addCaller, logEntry } from '../helpers/gateway';

let upstream: FakeServer;
let server: http.Server;
let url: string;
let close: () => Promise<void>;
const store = new MemoryStore();

beforeAll(async () => {
  upstream = await startOpenAIFake();
  const built = buildSharedApp({ store, openaiBaseURL: upstream.url, openaiKey: 'sk-up', limits: { keyPrefix: `shared-${randomBytes(4).toString('hex')}` } });
  close = built.close;
  server = await new Promise((resolve) => { const s = built.app.listen(0, '127.0.0.1', () => resolve(s)); });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await close();
  await upstream.close();
});

it('one balance, one rpm budget, one log and one billing basis across both routes', async () => {
  const start = 10_000;
  const { key, id } = addCaller(store, { balance: start, limits: { rpm: 4 } });
  const anthropic = new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 });
  const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
  const ids: string[] = [];

  const m1 = await anthropic.messages.create({ model: 'house-model', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  ids.push(m1.response.headers.get('request-id') as string);
  const c1 = await openai.chat.completions.create({ model: 'house-model', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  expect(c1.data.choices[0]?.message.content).toBe('Hi there!');
  ids.push(c1.response.headers.get('request-id') as string);
  const c2 = await openai.chat.completions.create({ model: 'house-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  let text = '';
  for await (const chunk of c2.data) text += chunk.choices[0]?.delta?.content ?? '';
  expect(text).toBe('Hi there!');
  ids.push(c2.response.headers.get('request-id') as string);
  const m2 = await anthropic.messages.stream({ model: 'house-model', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] });
  await m2.finalMessage();
  ids.push(m2.request_id as string);

  // The rpm budget of 4 is spent across both routes: the fifth call is refused on either.
  await expect(openai.chat.completions.create({ model: 'house-model', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 429 });
  await expect(anthropic.messages.create({ model: 'house-model', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 429 });

  const entries = await Promise.all(ids.map((rid) => logEntry(store, rid)));
  expect(entries.map((e) => e.endpoint)).toEqual(['messages', 'chat_completions', 'chat_completions', 'messages']);
  expect(new Set(entries.map((e) => e.callerId))).toEqual(new Set([id]));
  // Same usage (30 prompt tokens of which 10 cached, at the OpenAI format's half price, 12 completion) gives the same bill on both routes.
  expect(entries.map((e) => e.charge)).toEqual([49, 49, 49, 49]);
  expect(entries.every((e) => e.billingStatus === 'billed')).toBe(true);
  expect(store.getBalance(id)).toBe(start - 4 * 49);
  expect(store.held(id)).toBe(0);
  expect(store.getLog().filter((e) => e.callerId === id && e.status === 429)).toHaveLength(2);
});

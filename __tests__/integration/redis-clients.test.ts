/**
 * Redis limits with either ioredis major a host may have installed: 5 (RESP2) and 6 (RESP3 by
 * default). Counters, correction at settle, concurrency slots and the readiness ping on each.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import express from 'express';
import Redis5 from 'ioredis';
import Redis6 from 'ioredis6';
import { health } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import type { GatedFake } from '../helpers/fake-server';
import { addCaller, llmModels, logEntry, postMessages, startGateway, type RunningGateway } from '../helpers/gateway';
import { dropPrefix, REDIS_URL } from '../helpers/services';

let upstream: GatedFake;
beforeAll(async () => {
  upstream = await startAnthropicFake();
});
afterAll(async () => {
  await upstream.close();
});

type Client = Redis5 | Redis6;
const clients: Array<[string, () => Client]> = [
  ['ioredis 5', () => new Redis5(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false })],
  ['ioredis 6, RESP3', () => new Redis6(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false })],
];

describe.each(clients)('%s', (_name, connect) => {
  let redis: Client;
  let gw: RunningGateway;
  const keyPrefix = `test-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    redis = connect();
    await redis.connect();
    gw = await startGateway({ models: llmModels(upstream.url, upstream.url, ['claude-json', 'claude-gated']), limits: { redis, keyPrefix, windowSec: 60 } });
  });
  afterAll(async () => {
    await gw.close();
    await dropPrefix(redis as Redis5, keyPrefix);
    redis.disconnect();
  });

  /** One JSON call, returned once it is settled and logged (so its tpm correction was sent first). */
  async function call(key: string, maxTokens = 64): Promise<{ status: number; body: string }> {
    const res = await postMessages(gw.url, key, 'claude-json', { maxTokens });
    const out = { status: res.status, body: await res.text() };
    await logEntry(gw.store, res.headers.get('request-id') as string);
    return out;
  }

  it('rpm: the third request in the window is refused with 429 rate_limit_error', async () => {
    const { key } = addCaller(gw.store, { limits: { rpm: 2 } });
    const statuses = [(await call(key)).status, (await call(key)).status];
    const refused = await call(key);
    expect([...statuses, refused.status]).toEqual([200, 200, 429]);
    expect(JSON.parse(refused.body).error).toEqual({ type: 'rate_limit_error', message: expect.stringMatching(/\(rpm\)/) });
  });

  it('tpm: each call counts 74 estimated tokens and is corrected in Redis to the 40 confirmed, so a third call fits 160', async () => {
    // Uncorrected, the third call would need 3 × 74 = 222 > 160.
    const { key } = addCaller(gw.store, { limits: { tpm: 160 } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('concurrency: a slot is held while a stream runs, refused requests take none, and it comes back when the stream ends', async () => {
    const { key } = addCaller(gw.store, { limits: { concurrency: 1 } });
    const held = await postMessages(gw.url, key, 'claude-gated', { stream: true }); // its headers: admitted, slot taken
    expect(held.status).toBe(200);
    expect((await call(key)).status).toBe(429);
    expect((await call(key)).status).toBe(429);
    upstream.openGates();
    expect(await held.text()).toContain('message_stop');
    await logEntry(gw.store, held.headers.get('request-id') as string);
    expect((await call(key)).status).toBe(200);
  });

  it('health readiness pings it', async () => {
    const app = express();
    app.get('/readyz', health({ redis }).ready);
    const server = await new Promise<http.Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ok', checks: { redis: 'ok' } });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

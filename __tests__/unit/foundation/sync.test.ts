/** lib/foundation/sync.ts: the one seam between a value and a promise of it, and a store answering in thenables that are not native Promises. */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { createGatewayRouter, MemoryStore, type GatewayStore } from '../../../lib';
import { isThenable, then } from '../../../lib/foundation/sync';
import { startAnthropicFake } from '../../helpers/fake-anthropic';
import type { FakeServer } from '../../helpers/fake-server';
import { addCaller, llmModels, logEntry, postMessages } from '../../helpers/gateway';

/** A thenable that is no Promise: it settles a microtask later, as `run` does. */
const later = <T>(run: () => T): PromiseLike<T> => ({
  then: (onValue, onError) => Promise.resolve().then(run).then(onValue, onError),
});

describe('isThenable', () => {
  it.each([
    ['a native promise', Promise.resolve(1), true],
    ['a thenable object that is no Promise', later(() => 1), true],
    ['a function with a then method', Object.assign(() => 1, { then: () => undefined }), true],
    ['a value', { ok: true }, false],
    ['an object whose then is no function', { then: 1 }, false],
    ['undefined', undefined, false],
    ['null', null, false],
    ['a number', 0, false],
  ])('tells %s: %s', (_case, value, expected) => {
    expect(isThenable(value)).toBe(expected);
  });
});

describe('then', () => {
  it('runs at once on a value, with no promise made', () => {
    let ran = false;
    const out = then(2, (n) => { ran = true; return n * 3; });
    expect(ran).toBe(true);
    expect(out).toBe(6);
  });

  it('waits for a thenable that is no Promise, and answers a native Promise', async () => {
    const out = then(later(() => 2), (n) => n * 3);
    expect(out).toBeInstanceOf(Promise);
    await expect(out).resolves.toBe(6);
  });

  it('passes a rejection on, or to its handler', async () => {
    const failing: PromiseLike<number> = { then: (_ok, onError) => Promise.reject(new Error('down')).then(undefined, onError) };
    await expect(then(failing, (n) => n)).rejects.toThrow('down');
    await expect(then(failing, (n): number | string => n, (err) => `handled ${(err as Error).message}`)).resolves.toBe('handled down');
  });
});

describe('a store answering in thenables that are no Promises', () => {
  let fake: FakeServer;
  beforeAll(async () => {
    fake = await startAnthropicFake();
  });
  afterAll(() => fake.close());

  it('authenticates, holds, settles and logs a request as MemoryStore itself would', async () => {
    const memory = new MemoryStore();
    const store: GatewayStore = {
      findCaller: (hash) => later(() => memory.findCaller(hash)),
      reserve: (request) => later(() => memory.reserve(request)),
      renewHolds: (instanceId, expiresAt) => later(() => memory.renewHolds(instanceId, expiresAt)),
      settle: (settlement) => later(() => memory.settle(settlement)),
      release: (requestId) => later(() => memory.release(requestId)),
      appendLog: (entry) => later(() => memory.appendLog(entry)),
    };
    const router = createGatewayRouter({ store, models: llmModels(fake.url, fake.url, ['claude-json']).map((m) => ({ ...m, pricing: { input: 1_000_000, output: 2_000_000 } })), limits: { defaults: { concurrency: 2 } } });
    const server = express().use(router).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { key, id } = addCaller(memory, { balance: 10_000_000 });
      const res = await postMessages(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, key, 'claude-json');
      expect(res.status).toBe(200);
      const entry = await logEntry(memory, res.headers.get('request-id') as string);
      expect(entry).toMatchObject({ billingStatus: 'billed', usage: { provenance: 'confirmed' } });
      expect(entry.charge).toBe(25 + 2 * 15); // one minor unit per input token, two per output token
      expect(memory.getCharge(entry.requestId)).toBe(entry.charge);
      expect(memory.getBalance(id)).toBe(10_000_000 - entry.charge);
      expect(memory.held(id)).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await router.close();
    }
  });
});

/** lib/middleware/graceful-shutdown.ts: requests counted once; drain() refuses new ones with 529 and ends those past the grace. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { compose, errorHandler, gracefulShutdown, requestId } from '../../../lib';

describe('gracefulShutdown()', () => {
  let server: http.Server;
  afterEach(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));

  async function start(last: RequestHandler) {
    const gate = gracefulShutdown();
    const app = express();
    app.post('/v1/x', compose([requestId(), gate, gate, last]));
    app.use(errorHandler());
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { gate, url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  it('counts a request once however often it is met, and forgets it when it closes', async () => {
    const { gate } = await start((_req, res) => { res.json([...gate.responses()].length); });
    const res = await request(server).post('/v1/x').send({});
    expect(res.body).toBe(1);
    expect([...gate.responses()]).toHaveLength(0);
  });

  it('refuses new requests with 529 overloaded_error once drain() began', async () => {
    const { gate } = await start((_req, res) => { res.json({}); });
    await gate.drain(10);
    expect(gate.closing).toBe(true);
    const res = await request(server).post('/v1/x').send({});
    expect(res.status).toBe(529);
    expect(res.body.error).toEqual({ type: 'overloaded_error', message: 'The gateway is shutting down; retry.' });
  });

  it('ends a request still open at the end of the grace with 529', async () => {
    let arrived: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => { arrived = resolve; });
    const { gate, url } = await start(() => arrived()); // never answers by itself
    const pending = fetch(`${url()}/v1/x`, { method: 'POST' });
    await inside;
    const started = Date.now();
    await gate.drain(50);
    const res = await pending;
    expect(res.status).toBe(529);
    expect(res.headers.get('x-should-retry')).toBe('true');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});

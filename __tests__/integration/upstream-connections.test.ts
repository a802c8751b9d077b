/**
 * Upstream connections of the adapters' clients (node-fetch, nodeHttpFetch and undiciFetch): idle ones are
 * closed by the gateway before the upstream closes them (a request sent on a connection being
 * closed fails with a reset), there is no hidden cap on how many are open, and nodeHttpFetch's `maxSockets` caps them.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropicAdapter, nodeHttpFetch, undiciFetch, type FetchLike, type ModelEntry } from '../../lib';
import { ANTHROPIC_USAGE } from '../helpers/fake-anthropic';
import { gate, sleep, UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller, postMessages, PRICING, startGateway, type RunningGateway } from '../helpers/gateway';

/** An Anthropic upstream that never closes an idle connection itself. */
interface Upstream {
  url: string;
  /** Connections opened so far, open now and open at most at once; requests received. */
  opened: number;
  open: number;
  peak: number;
  received: number;
  /** Lets the held replies go (with `held`). */
  release(): void;
  close(): Promise<void>;
}

interface UpstreamOptions {
  /** The `Keep-Alive` header sent, if any. */
  keepAlive?: string;
  replyAfterMs?: number;
  /** Replies wait for release(). */
  held?: boolean;
}

/** Upstream names, one per connection closed, in the order the closes arrived. */
const closedOrder: string[] = [];

async function startUpstream(name: string, options: UpstreamOptions = {}): Promise<Upstream> {
  const sockets = new Set<Socket>();
  const hold = gate();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      upstream.received++;
      if (options.held) await hold.wait();
      await sleep(options.replyAfterMs ?? 0);
      res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive', ...(options.keepAlive ? { 'keep-alive': options.keepAlive } : {}) });
      res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end_turn', stop_sequence: null, usage: ANTHROPIC_USAGE }));
    });
  });
  server.keepAliveTimeout = 600_000; // the upstream never closes first: only the gateway can
  const upstream: Upstream = { url: '', opened: 0, open: 0, peak: 0, received: 0, release: hold.open, close: async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  } };
  server.on('connection', (socket: Socket) => {
    upstream.opened++;
    upstream.peak = Math.max(upstream.peak, ++upstream.open);
    sockets.add(socket);
    socket.on('close', () => {
      upstream.open--;
      sockets.delete(socket);
      closedOrder.push(name);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return upstream;
}

let gw: RunningGateway;
let key: string;
const upstreams: Record<string, Upstream> = {};
const clients: Record<string, FetchLike | undefined> = { 'node-fetch': undefined, 'node-http': nodeHttpFetch(), undici: undiciFetch() };

/** The clients whose connections can be capped (`maxSockets`). */
const CAPPED: ReadonlyArray<readonly [string, (o: { maxSockets: number }) => FetchLike]> = [['node-http', nodeHttpFetch], ['undici', undiciFetch]];

beforeAll(async () => {
  const models: ModelEntry[] = [];
  const add = async (name: string, options: UpstreamOptions, fetch: FetchLike | undefined): Promise<void> => {
    upstreams[name] = await startUpstream(name, options);
    const adapter = anthropicAdapter({ baseURL: upstreams[name].url, apiKey: UPSTREAM_KEY, fetch });
    models.push({ id: name, capability: 'llm', upstream: adapter, pricing: PRICING, upstreamModel: 'claude' });
  };
  for (const [client, fetch] of Object.entries(clients)) {
    // No hint: closed after the gateway's own idle limit. `timeout=2`: one second before the upstream's 2 s.
    // A reply slower than the idle limit shows the limit does not cut a connection in use.
    await add(`${client}-plain`, {}, fetch);
    await add(`${client}-hinted`, { keepAlive: 'timeout=2' }, fetch);
    await add(`${client}-slow`, { replyAfterMs: 5000 }, fetch);
    await add(`${client}-held`, { held: true }, fetch);
  }
  for (const [client, capped] of CAPPED) {
    await add(`capped-${client}`, { held: true }, capped({ maxSockets: 2 }));
    // One connection shared by two adapters: one waits as long as it likes, the other 300 ms for its first byte.
    const single = capped({ maxSockets: 1 });
    await add(`single-${client}`, { held: true }, single);
    const impatient = anthropicAdapter({ baseURL: upstreams[`single-${client}`]?.url as string, apiKey: UPSTREAM_KEY, fetch: single, timeouts: { firstByteMs: 300 } });
    models.push({ id: `single-${client}-impatient`, capability: 'llm', upstream: impatient, pricing: PRICING, upstreamModel: 'claude' });
  }
  gw = await startGateway({ models });
  ({ key } = addCaller(gw.store, { balance: 1_000_000_000 }));
});
afterAll(async () => {
  await gw.close();
  await Promise.all(Object.values(upstreams).map((u) => u.close()));
});

/** Polls until `done()` holds (at most 30 s); the caller's expectations then say what was wrong. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !done(); i++) await sleep(50);
}

const up = (name: string): Upstream => upstreams[name] as Upstream;

/** One client's idle-connection calls; the two clients run side by side, each on its own upstreams. */
async function idleConnections(client: string): Promise<void> {
  const [plain, hinted, slow] = ['plain', 'hinted', 'slow'].map((kind) => `${client}-${kind}`) as [string, string, string];
  const slowReply = postMessages(gw.url, key, slow);
  // The plain upstream answers first: were the hint ignored, its connection would close first.
  expect((await postMessages(gw.url, key, plain)).status).toBe(200);
  expect((await postMessages(gw.url, key, hinted)).status).toBe(200);
  expect((await slowReply).status).toBe(200);
  await until(() => [plain, hinted, slow].every((n) => closedOrder.filter((c) => c === n).length === up(n).opened));
  const order = closedOrder.filter((n) => n.startsWith(`${client}-`));
  expect(order).toHaveLength(3);
  expect(order.indexOf(hinted)).toBeLessThan(order.indexOf(plain));
  // A later call opens a fresh connection and succeeds.
  expect((await postMessages(gw.url, key, plain)).status).toBe(200);
  expect(up(plain).opened).toBe(2);
}

it('closes idle upstream connections before the upstream would, sooner when it says so, never one in use', async () => {
  await Promise.all(Object.keys(clients).map(idleConnections));
}, 60_000);

it('puts no cap of its own on the connections open to an upstream: 300 calls in flight reach it at once', async () => {
  const names = Object.keys(clients).map((client) => `${client}-held`);
  const calls = names.flatMap((name) => Array.from({ length: 300 }, () => postMessages(gw.url, key, name)));
  await until(() => names.every((n) => up(n).received === 300));
  for (const n of names) expect(up(n)).toMatchObject({ received: 300, peak: 300 });
  for (const n of names) up(n).release();
  expect((await Promise.all(calls)).map((r) => r.status)).toEqual(calls.map(() => 200));
}, 60_000);

it.each(CAPPED.map(([c]) => c))("%s's maxSockets caps them: further calls wait for a free connection and are answered", async (client) => {
  const capped = up(`capped-${client}`);
  const calls = Array.from({ length: 5 }, () => postMessages(gw.url, key, `capped-${client}`));
  for (const reached of [2, 4, 5]) {
    await until(() => capped.received >= reached);
    expect(capped.received).toBe(reached); // two at a time
    capped.release();
  }
  expect((await Promise.all(calls)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  expect(capped.peak).toBe(2);
}, 60_000);

it.each(CAPPED.map(([c]) => c))('%s: a call waiting for a capped connection gives up at firstByteMs (504) and is never sent', async (client) => {
  const single = up(`single-${client}`);
  const holder = postMessages(gw.url, key, `single-${client}`);
  await until(() => single.received === 1); // the holder has the one connection
  expect((await postMessages(gw.url, key, `single-${client}-impatient`)).status).toBe(504);
  single.release();
  expect((await holder).status).toBe(200);
  // Were the abandoned call still queued, it would take the freed connection before this one.
  let status = 0;
  void postMessages(gw.url, key, `single-${client}`).then((r) => { status = r.status; });
  await until(() => {
    single.release();
    return status !== 0;
  });
  expect(status).toBe(200);
  expect(single.received).toBe(2);
}, 60_000);

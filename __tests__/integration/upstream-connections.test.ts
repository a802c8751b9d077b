/**
 * Pooled upstream connections are closed by the gateway before the upstream closes them: a request
 * sent on a connection the upstream is closing fails with a reset (seen under load as a 500).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropicAdapter, nodeHttpFetch, type FetchLike } from '../../lib';
import { ANTHROPIC_USAGE } from '../helpers/fake-anthropic';
import { sleep, UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller, postMessages, PRICING, startGateway, type RunningGateway } from '../helpers/gateway';

/** An Anthropic upstream that never closes an idle connection itself and notes who closed each. */
interface KeepAliveUpstream {
  url: string;
  /** Connections opened so far. */
  opened: number;
  close(): Promise<void>;
}

/** Upstream names, one per connection closed, in the order the closes arrived. */
const closedOrder: string[] = [];

async function startUpstream(name: string, keepAliveHeader: string | null, replyAfterMs = 0): Promise<KeepAliveUpstream> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const reply = (): void => {
        res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive', ...(keepAliveHeader ? { 'keep-alive': keepAliveHeader } : {}) });
        res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end_turn', stop_sequence: null, usage: ANTHROPIC_USAGE }));
      };
      setTimeout(reply, replyAfterMs);
    });
  });
  server.keepAliveTimeout = 600_000; // the upstream never closes first: only the gateway can
  const upstream = { url: '', opened: 0, close: async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  } };
  server.on('connection', (socket: Socket) => {
    upstream.opened++;
    sockets.add(socket);
    socket.on('close', () => {
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
const upstreams: Record<string, KeepAliveUpstream> = {};
const clients: Record<string, FetchLike | undefined> = { 'node-fetch': undefined, 'node-http': nodeHttpFetch() };

beforeAll(async () => {
  const models = [];
  for (const client of Object.keys(clients)) {
    // No hint: closed after the gateway's own idle limit. `timeout=2`: one second before the upstream's 2 s.
    // A reply slower than the idle limit shows the limit does not cut a connection in use.
    for (const [kind, header, replyAfterMs] of [['plain', null, 0], ['hinted', 'timeout=2', 0], ['slow', null, 5000]] as const) {
      const name = `${client}-${kind}`;
      upstreams[name] = await startUpstream(name, header, replyAfterMs);
      const adapter = anthropicAdapter({ baseURL: upstreams[name].url, apiKey: UPSTREAM_KEY, fetch: clients[client] });
      models.push({ id: name, capability: 'llm' as const, upstream: adapter, pricing: PRICING, upstreamModel: 'claude' });
    }
  }
  gw = await startGateway({ models });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all(Object.values(upstreams).map((u) => u.close()));
});

/** Waits until every connection of `names` is closed (the upstream never closes one). */
async function closed(names: string[]): Promise<void> {
  for (let i = 0; i < 600 && names.some((n) => closedOrder.filter((c) => c === n).length < (upstreams[n]?.opened ?? 0)); i++) await sleep(50);
}

/** One client's calls; the two clients run side by side, each on its own upstreams. */
async function check(client: string): Promise<void> {
  const [plain, hinted, slow] = ['plain', 'hinted', 'slow'].map((kind) => `${client}-${kind}`) as [string, string, string];
  const slowReply = postMessages(gw.url, key, slow);
  // The plain upstream answers first: were the hint ignored, its connection would close first.
  expect((await postMessages(gw.url, key, plain)).status).toBe(200);
  expect((await postMessages(gw.url, key, hinted)).status).toBe(200);
  expect((await slowReply).status).toBe(200);
  await closed([plain, hinted, slow]);
  const order = closedOrder.filter((n) => n.startsWith(`${client}-`));
  expect(order).toHaveLength(3);
  expect(order.indexOf(hinted)).toBeLessThan(order.indexOf(plain));
  // A later call opens a fresh connection and succeeds.
  expect((await postMessages(gw.url, key, plain)).status).toBe(200);
  expect(upstreams[plain]?.opened).toBe(2);
}

it('closes idle upstream connections before the upstream would, sooner when it says so, never one in use (node-fetch and nodeHttpFetch)', async () => {
  await Promise.all(Object.keys(clients).map(check));
}, 60_000);

/** Upstream faults, on each upstream client: for each, the documented client outcome, billing outcome and log entry, and no leak. */
import http from 'node:http';
import { anthropicAdapter, type FetchLike } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { SECRET_MARKER, UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';
import { addCaller, logEntry, postMessages, PRICING, startGateway, type RunningGateway } from '../helpers/gateway';
import { TRANSPORTS } from '../helpers/transports';

let fake: GatedFake;
const START = 1_000_000;
beforeAll(async () => {
  fake = await startAnthropicFake();
});
afterAll(async () => {
  fake.openGates();
  await fake.close();
});

/** A gateway on `fetch` (undefined: the default client) with one model per fault. */
async function faultGateway(fetch: FetchLike | undefined): Promise<RunningGateway> {
  // Only the timeout a case is about is short; every other wait is long, so a busy machine
  // (a delayed fake, a descheduled test process) cannot turn one fault into another.
  const LONG = 20_000;
  const adapter = (timeouts: { firstByteMs: number; idleMs: number }, extra: { maxResponseBytes?: number } = {}) =>
    anthropicAdapter({ baseURL: fake.url, apiKey: UPSTREAM_KEY, timeouts, fetch, ...extra });
  const patient = adapter({ firstByteMs: LONG, idleMs: LONG });
  const firstByte = adapter({ firstByteMs: 300, idleMs: LONG });
  const idle = adapter({ firstByteMs: LONG, idleMs: 300 });
  const refused = anthropicAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: UPSTREAM_KEY, timeouts: { firstByteMs: LONG, idleMs: LONG }, fetch });
  const upstreamOf: Record<string, typeof patient> = {
    'claude-stall': firstByte, 'claude-reset-mid-body': idle, 'claude-stall-midstream': idle, 'claude-drip': idle,
    'claude-big': adapter({ firstByteMs: LONG, idleMs: LONG }, { maxResponseBytes: 1000 }), refused,
  };
  const names = ['claude-reset-before-headers', 'claude-reset-mid-body', 'claude-badjson', 'claude-bad-sse', 'claude-drip', 'claude-stall', 'claude-stall-midstream',
    'claude-reset', 'claude-truncated', 'claude-html', 'claude-status-429', 'claude-status-500', 'claude-status-529', 'claude-midstream-error', 'claude-big', 'refused', 'claude-gated'];
  return startGateway({ models: names.map((id) => ({ id, capability: 'llm' as const, upstream: upstreamOf[id] ?? patient, pricing: PRICING })) });
}

/** [fault, model, stream, client status, client code (or "ok"), billing status] — the README's table. */
export const FAULTS: Array<[string, string, boolean, number, string, string]> = [
  ['connection refused', 'refused', false, 500, 'api_error', 'not_billed'],
  ['reset before headers', 'claude-reset-before-headers', true, 500, 'api_error', 'not_billed'],
  // node-fetch 2 does not notice a reset inside a content-length body: the idle timeout ends it.
  ['reset mid-body (JSON)', 'claude-reset-mid-body', false, 504, 'timeout_error', 'not_billed'],
  ['reset mid-stream', 'claude-reset', true, 200, 'api_error', 'needs_review'],
  ['stall before the first byte', 'claude-stall', true, 504, 'timeout_error', 'not_billed'],
  ['stall between events', 'claude-stall-midstream', true, 200, 'timeout_error', 'needs_review'],
  ['slow drip (never idle past the timeout)', 'claude-drip', true, 200, 'ok', 'billed'],
  ['invalid JSON', 'claude-badjson', false, 500, 'api_error', 'not_billed'],
  ['invalid SSE event', 'claude-bad-sse', true, 200, 'api_error', 'needs_review'],
  ['truncated SSE (no message_stop)', 'claude-truncated', true, 200, 'api_error', 'needs_review'],
  ['oversized answer', 'claude-big', false, 500, 'api_error', 'not_billed'],
  ['wrong content type', 'claude-html', true, 500, 'api_error', 'not_billed'],
  ['429 with retry-after', 'claude-status-429', false, 429, 'rate_limit_error', 'not_billed'],
  ['500', 'claude-status-500', true, 500, 'api_error', 'not_billed'],
  ['529 with retry-after', 'claude-status-529', false, 529, 'overloaded_error', 'not_billed'],
  ['error event mid-stream', 'claude-midstream-error', true, 200, 'overloaded_error', 'needs_review'],
];

/** The outcomes on `transport`: a client that notices a reset inside a JSON body fails at once, where node-fetch 2 waits for the idle timeout. */
const faults = (transport: string): typeof FAULTS => FAULTS.map((row) => (transport !== 'node-fetch' && row[1] === 'claude-reset-mid-body' ? [row[0], row[1], row[2], 500, 'api_error', row[5]] : row));

describe.each(TRANSPORTS)('on %s', (transport, client) => {
  let gw: RunningGateway;
  let key: string;
  let callerId: string;
  beforeAll(async () => {
    gw = await faultGateway(client());
    ({ key, id: callerId } = addCaller(gw.store, { balance: START }));
  });
  afterAll(async () => gw.close());

  it.each(faults(transport))('%s: documented client and billing outcome, a log entry, no leak', async (_fault, model, stream, status, code, billing) => {
    const before = gw.store.getBalance(callerId);
    const res = await postMessages(gw.url, key, model, { stream });
    const text = await res.text();
    expect(res.status).toBe(status);
    if (code === 'ok') expect(text).toContain('event: message_stop');
    else if (status === 200) expect(text).toMatch(new RegExp(`event: error\\ndata: \\{"type":"error","error":\\{"type":"${code}","message":"[^"]+"\\}\\}\\n\\n$`));
    else expect(JSON.parse(text)).toMatchObject({ type: 'error', error: { type: code } });
    for (const secret of [SECRET_MARKER, UPSTREAM_KEY, '127.0.0.1', fake.url]) expect(text + JSON.stringify([...res.headers])).not.toContain(secret);
    const entry = await logEntry(gw.store, res.headers.get('request-id') as string);
    expect(entry).toMatchObject({ status, billingStatus: billing, errorCode: code === 'ok' ? null : code });
    expect(JSON.stringify(entry)).not.toContain(UPSTREAM_KEY);
    // Billed: the confirmed usage's exact cost (25 in, 15 out: 0.3). Needs review: at most the input message_start confirmed (0.075).
    if (billing === 'billed') expect(entry.cost).toBe('0.3');
    else if (billing === 'needs_review') expect(['0', '0.075']).toContain(entry.cost);
    else expect(entry.cost).toBe('0');
    expect(gw.store.getBalance(callerId)).toBe(before - entry.charge);
    expect(gw.store.held(callerId)).toBe(0);
  });
  
  it('closes the upstream request when the first byte is late', async () => {
    const before = fake.aborted.length;
    const res = await postMessages(gw.url, key, 'claude-stall', { stream: true });
    expect(res.status).toBe(504);
    await res.text();
    for (let i = 0; i < 100 && fake.aborted.length === before; i++) await new Promise((r) => setTimeout(r, 5));
    expect(fake.aborted.length).toBe(before + 1);
  });

  it('aborts the upstream call when the client goes away mid-stream', async () => {
    const before = fake.aborted.length;
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' } }, (res) => {
        res.once('data', () => { req.destroy(); resolve(); });
      });
      req.on('error', (e) => { if (!req.destroyed) reject(e); });
      req.end(JSON.stringify({ model: 'claude-gated', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'Hello' }] }));
    });
    for (let i = 0; i < 400 && fake.aborted.length === before; i++) await new Promise((r) => setTimeout(r, 5));
    expect(fake.aborted.length).toBe(before + 1); // the gated stream would not end on its own within 20 s
  });
});

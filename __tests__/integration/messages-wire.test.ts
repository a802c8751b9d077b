/** Messages at the byte level: SSE framing, upstream failures, timeouts, disconnects, backpressure, translation. */
import http from 'node:http';
import request from 'supertest';
import { DELTAS, flood, FLOOD_EVENTS, startAnthropicFake } from '../helpers/fake-anthropic';
import { startOpenAIFake } from '../helpers/fake-openai';
import { SECRET_MARKER, sleep, UPSTREAM_KEY, type GatedFake } from '../helpers/fake-server';
import { openaiChatAdapter, type MessagesAdapter, type MessagesRequest, type StreamEvent } from '../../lib';
import { UsageTracker } from '../../lib/billing/usage';
import { addCaller, llmModels, logEntry, PRICING, startGateway, type RunningGateway } from '../helpers/gateway';

let anthropic: GatedFake;
let openai: GatedFake;
let gw: RunningGateway;
let key: string;
/** Upstream timeouts far beyond any wait here: an abort it shows has no cause but the one tested. */
let patient: RunningGateway;
let patientKey: string;

const NAMES = [
  'claude-stream', 'claude-noisy', 'claude-tail', 'claude-drip', 'claude-slow', 'claude-reset', 'claude-truncated', 'claude-html', 'claude-stall', 'claude-stall-midstream',
  'claude-status-429', 'claude-status-500', 'claude-status-529', 'claude-status-401', 'claude-status-403', 'claude-status-400', 'claude-status-404',
  'gpt-stream', 'gpt-json', 'gpt-slow', 'gpt-error-unwrapped', 'gpt-reset', 'gpt-length', 'gpt-status-503',
];

beforeAll(async () => {
  anthropic = await startAnthropicFake();
  openai = await startOpenAIFake();
  const models = llmModels(anthropic.url, openai.url, NAMES, { firstByteMs: 300, idleMs: 300 });
  models.push({ id: 'public-name', capability: 'llm', upstream: models[0]!.upstream, upstreamModel: 'claude-stream', pricing: PRICING, temperature: false });
  models.push({ id: 'public-onewrite', capability: 'llm', upstream: models[0]!.upstream, upstreamModel: 'claude-onewrite', pricing: PRICING });
  gw = await startGateway({ models });
  ({ key } = addCaller(gw.store));
  patient = await startGateway({ models: llmModels(anthropic.url, openai.url, ['claude-linger', 'claude-error-open', 'claude-gated', 'claude-flood', 'gpt-gated'], { firstByteMs: 30_000, idleMs: 30_000 }) });
  ({ key: patientKey } = addCaller(patient.store));
});
afterAll(async () => {
  anthropic.openGates();
  openai.openGates();
  await Promise.all([gw.close(), patient.close()]);
  await Promise.all([anthropic.close(), openai.close()]);
});

const body = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }], ...extra });
const post = (b: unknown, on = gw, as = key) => request(on.url).post('/v1/messages').set({ 'x-api-key': as, 'anthropic-version': '2023-06-01' }).send(b as object);
/** Waits up to 5 s for `done()`: far longer than the event takes, far shorter than the patient gateway's timeouts. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await sleep(10);
}
const raw = (res: request.Response): string => JSON.stringify(res.headers) + (res.text ?? '');
const frames = (text: string): Array<{ event: string; data: Record<string, unknown> }> =>
  text.split('\n\n').filter(Boolean).map((f) => {
    const [e, d] = f.split('\n');
    return { event: (e ?? '').replace('event: ', ''), data: JSON.parse((d ?? '').replace('data: ', '')) as Record<string, unknown> };
  });

describe('SSE output', () => {
  it('frames every event with an event line matching data.type, one message_start, contiguous blocks, then message_stop', async () => {
    const res = await post(body('gpt-stream', { stream: true }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text).toMatch(/^event: message_start\ndata: \{"type":"message_start",/);
    const list = frames(res.text);
    for (const f of list) expect(f.data.type).toBe(f.event);
    expect(list.map((f) => f.event)).toEqual([
      'message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta',
      'content_block_stop', 'message_delta', 'message_stop',
    ]);
    expect(list[0]!.data.message).toMatchObject({ content: [], stop_reason: null, usage: expect.any(Object), model: 'gpt-stream' });
    expect(list[6]!.data).toEqual({
      type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: 20, output_tokens: 12, cache_read_input_tokens: 10, cache_creation_input_tokens: 0 },
    });
  });

  it('passes each upstream event on as it arrives (no batching)', async () => {
    const arrivals: number[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' } }, (res) => {
        res.on('data', (c: Buffer) => { if (c.toString().includes('text_delta')) arrivals.push(Date.now()); });
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(JSON.stringify(body('claude-slow', { stream: true })));
    });
    expect(arrivals.length).toBeGreaterThanOrEqual(4);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(120); // 5 deltas, 40 ms apart upstream
  });

  it('forwards content events as the upstream wrote them, and renames only the model in message_start', async () => {
    const res = await post(body('claude-stream', { stream: true }));
    const upstreamFrames = [
      `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
      `event: ping\ndata: {"type":"ping"}\n\n`,
      `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' fake' } })}\n\n`,
    ];
    for (const f of upstreamFrames) expect(res.text).toContain(f);
    expect(frames(res.text)[0]!.data.message).toMatchObject({ model: 'claude-stream', usage: { input_tokens: 25, output_tokens: 1 } });
  });

  it('sends a client only whole events: no upstream comment, id or retry field, events split across reads joined, each named by its type, none after message_stop', async () => {
    const canonical = (res: request.Response): string => frames(res.text).map((f) => `event: ${f.event}\ndata: ${JSON.stringify(f.data)}\n\n`).join('');
    const stream = await post(body('claude-stream', { stream: true })); // every upstream read holds whole events: sent as read
    expect(stream.text).toBe(canonical(stream));
    const noisy = await post(body('claude-noisy', { stream: true }));
    expect(noisy.text).not.toMatch(/keep-alive|^id:|^retry:|SECRET/m);
    expect(noisy.text).toBe(canonical(noisy));
    expect(frames(noisy.text).map((f) => f.event)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    const tail = await post(body('claude-tail', { stream: true }));
    expect(tail.text).toBe(canonical(tail));
    expect(frames(tail.text).map((f) => f.event).slice(-4)).toEqual(['content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    const drip = await post(body('claude-drip', { stream: true }));
    expect(drip.text).toBe(canonical(drip));
    expect(frames(drip.text).filter((f) => f.event === 'content_block_delta')).toHaveLength(5);
  });

  it('answers a stream with the connection the client asked for: close when it sent Connection: close', async () => {
    const connection = await new Promise<string | undefined>((resolve, reject) => {
      const req = http.request(`${gw.url}/v1/messages`, { method: 'POST', agent: false, headers: { connection: 'close', 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers.connection));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body('claude-stream', { stream: true })));
    });
    expect(connection).toBe('close');
  });

  it('ends the client stream with message_stop, while the upstream body is drained (not reset) and then settled', async () => {
    const abortedBefore = anthropic.aborted.length;
    // The upstream keeps its body open after message_stop until openGates(): the client's stream ends before it.
    const res = await post(body('claude-linger', { stream: true }), patient, patientKey);
    expect(res.text).toMatch(/event: message_stop\ndata: \{"type":"message_stop"\}\n\n$/);
    anthropic.openGates();
    const entry = await logEntry(patient.store, res.headers['request-id'] as string);
    expect(entry).toMatchObject({ status: 200, billingStatus: 'billed', usage: { outputTokens: 15 } });
    await sleep(300); // the upstream has ended its body: had the gateway cut the connection, the fake would have seen it
    expect(anthropic.aborted.length).toBe(abortedBefore); // the upstream response finished: the connection stays usable
  });

  it('honours backpressure: a client that stops reading stops the upstream read', async () => {
    flood.written = 0;
    // On the patient gateway: a loaded machine's pauses between upstream reads must not look like an idle upstream.
    const req = http.request(`${patient.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': patientKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' } });
    const response = new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
    req.end(JSON.stringify(body('claude-flood', { stream: true })));
    const res = await response;
    res.pause();
    // Wait until the upstream has written nothing for 500 ms (up to 15 s): the socket buffers are full.
    let stalledAt = -1;
    for (let i = 0; i < 30 && flood.written !== stalledAt; i++) {
      stalledAt = flood.written;
      await sleep(500);
    }
    expect(flood.written).toBe(stalledAt); // nothing more is pulled while the client is not reading
    expect(stalledAt).toBeLessThan(FLOOD_EVENTS / 2); // the rest waits upstream (kernel socket buffers hold some MiB)
    res.resume();
    await new Promise((r) => res.on('end', r));
    expect(flood.written).toBe(FLOOD_EVENTS);
  });
});

describe('upstream failures before the first byte', () => {
  it.each([
    ['claude-status-429', 429, 'rate_limit_error', '7'],
    ['claude-status-500', 500, 'api_error', undefined],
    ['claude-status-529', 529, 'overloaded_error', '7'],
    ['claude-status-401', 500, 'api_error', undefined],
    ['claude-status-403', 500, 'api_error', undefined],
    ['claude-status-404', 500, 'api_error', undefined],
    ['claude-status-400', 400, 'invalid_request_error', undefined],
    ['gpt-status-503', 529, 'overloaded_error', '3'],
    ['claude-html', 500, 'api_error', undefined],
    ['claude-stall', 504, 'timeout_error', undefined],
  ])('%s -> %i %s, in JSON and in streams, with no upstream detail', async (model, status, type, retryAfter) => {
    for (const stream of [false, true]) {
      const res = await post(body(model, { stream }));
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body.error.type).toBe(type);
      expect(res.headers['retry-after']).toBe(retryAfter);
      expect(raw(res)).not.toContain(SECRET_MARKER);
      expect(raw(res)).not.toContain(UPSTREAM_KEY);
      expect(raw(res)).not.toContain('127.0.0.1');
      const entry = await logEntry(gw.store, res.headers['request-id'] as string);
      expect(entry).toMatchObject({ status, errorCode: type, billingStatus: 'not_billed', charge: 0 });
      if (model !== 'claude-stall') expect(entry.detail).toMatch(model.includes('status') || model.includes('html') ? SECRET_MARKER : /./);
    }
  });
});

describe('upstream failures after the first byte', () => {
  it.each([
    ['claude-reset', 'api_error'],
    ['claude-truncated', 'api_error'],
    ['claude-stall-midstream', 'timeout_error'],
    ['gpt-error-unwrapped', 'overloaded_error'],
    ['gpt-reset', 'api_error'],
  ])('%s ends with an error event (%s) and no message_stop', async (model, type) => {
    const res = await post(body(model, { stream: true }));
    expect(res.status).toBe(200);
    const list = frames(res.text);
    expect(list[0]!.event).toBe('message_start');
    expect(list.at(-1)).toEqual({ event: 'error', data: { type: 'error', error: { type, message: expect.any(String) } } });
    expect(list.some((f) => f.event === 'message_stop')).toBe(false);
    expect(raw(res)).not.toContain(SECRET_MARKER);
    const entry = await logEntry(gw.store, res.headers['request-id'] as string);
    expect(entry.errorCode).toBe(type);
  });

  it('closes an upstream body left open after its error event, without waiting for the idle timeout', async () => {
    const before = anthropic.aborted.length;
    const res = await post(body('claude-error-open', { stream: true }), patient, patientKey);
    expect(frames(res.text).at(-1)).toMatchObject({ event: 'error', data: { error: { type: 'overloaded_error' } } });
    await until(() => anthropic.aborted.length > before);
    expect(anthropic.aborted.length).toBe(before + 1); // the idle timeout is 30 s
  });
});

describe('client disconnect', () => {
  it.each(['claude-gated', 'gpt-gated'])('aborts the %s upstream call, which would not end on its own', async (model) => {
    const upstream = model.startsWith('gpt') ? openai : anthropic;
    const before = upstream.aborted.length;
    let requestId = '';
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${patient.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': patientKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' } }, (res) => {
        requestId = res.headers['request-id'] as string;
        res.once('data', () => { req.destroy(); resolve(); });
      });
      req.on('error', (e) => { if (!req.destroyed) reject(e); });
      req.end(JSON.stringify(body(model, { stream: true })));
    });
    const entry = await logEntry(patient.store, requestId);
    await until(() => upstream.aborted.length > before);
    expect(upstream.aborted.length).toBe(before + 1);
    expect(entry.detail).toMatch(/client disconnected/);
    expect(entry.errorCode).toBeNull();
  });
});

describe('client disconnect, host adapter', () => {
  it('aborts the AbortSignal a host adapter reads from its call context', async () => {
    let abortedAt = 0;
    const adapter: MessagesAdapter = {
      kind: 'messages', name: 'host',
      create: () => Promise.reject(new Error('not used')),
      async *stream(request, ctx) {
        yield [{ type: 'message_start', message: { id: 'msg_h', type: 'message', role: 'assistant', model: request.model, content: [], usage: { input_tokens: 1, output_tokens: 0 } } }];
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => { abortedAt = Date.now(); resolve(); }, { once: true }));
      },
    };
    const host = await startGateway({ models: [{ id: 'host-model', capability: 'llm', upstream: adapter, pricing: PRICING }] });
    try {
      const { key: hostKey } = addCaller(host.store);
      const closedAt = await new Promise<number>((resolve) => {
        const req = http.request(`${host.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': hostKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' } }, (res) => {
          res.once('data', () => { req.destroy(); resolve(Date.now()); });
        });
        req.on('error', () => undefined);
        req.end(JSON.stringify(body('host-model', { stream: true })));
      });
      await until(() => abortedAt > 0);
      expect(abortedAt).toBeGreaterThanOrEqual(closedAt); // nothing else ends this stream: no upstream, no timeout
    } finally {
      await host.close();
    }
  });
});

describe('request translation', () => {
  it('sends the upstream model name, returns the public one, and drops temperature where the model does not take it', async () => {
    const res = await post(body('public-name', { temperature: 0.3 }));
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('public-name');
    expect(res.text).not.toContain('claude-stream');
    const sent = anthropic.received.at(-1)!;
    expect(sent.body.model).toBe('claude-stream');
    expect(sent.body).not.toHaveProperty('temperature');
    expect(sent.headers['x-api-key']).toBe(UPSTREAM_KEY);
    expect(sent.headers['x-api-key']).not.toBe(key);
    const stream = await post(body('public-name', { stream: true }));
    expect(anthropic.received.at(-1)!.body.model).toBe('claude-stream');
    expect(frames(stream.text)[0]!.data.message).toMatchObject({ model: 'public-name' });
    expect(stream.text).not.toContain('claude-stream');
    // A stream read whole at once: message_start renamed in front of the rest, sent as it came.
    const whole = await post(body('public-onewrite', { stream: true }));
    expect(whole.text).not.toContain('claude-onewrite');
    expect(frames(whole.text).map((f) => f.event)).toEqual(['message_start', 'content_block_start', 'ping', ...DELTAS.map(() => 'content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop']);
    expect(frames(whole.text)[0]!.data.message).toMatchObject({ model: 'public-onewrite', usage: { input_tokens: 25 } });
  });

  it('translates to Chat Completions: system first, max_tokens, temperature, include_usage on streams, Bearer key', async () => {
    await post(body('gpt-json', { system: [{ type: 'text', text: 'Be brief.' }], temperature: 0.2, metadata: { user_id: 'u1' } }));
    const sent = openai.received.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(sent.body).toEqual({
      model: 'gpt-json', max_tokens: 64, temperature: 0.2, user: 'u1',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }],
    });
    await post(body('gpt-stream', { stream: true }));
    expect(openai.received.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('maps finish_reason length to max_tokens and cached prompt tokens to cache reads', async () => {
    const res = await post(body('gpt-length'));
    expect(res.body.stop_reason).toBe('max_tokens');
    expect(res.body.usage).toEqual({ input_tokens: 20, output_tokens: 12, cache_read_input_tokens: 10, cache_creation_input_tokens: 0 });
  });
});

describe('translated stream batching', () => {
  it('yields the closing events with the chunks read together with [DONE]: one batch, one client write', async () => {
    const adapter = openaiChatAdapter({ baseURL: openai.url, apiKey: UPSTREAM_KEY });
    const ctx = { signal: new AbortController().signal, requestId: 'req_batch', usage: new UsageTracker() };
    const batches: string[][] = [];
    for await (const batch of adapter.stream(body('gpt-onewrite') as MessagesRequest, ctx)) batches.push((batch as StreamEvent[]).map((e) => e.type));
    expect(batches).toEqual([['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta',
      'content_block_stop', 'message_delta', 'message_stop']]);
    expect(ctx.usage.snapshot()).toMatchObject({ provenance: 'confirmed', outputTokens: 12 });
  });
});

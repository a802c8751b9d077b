/** Graceful shutdown, and secret hygiene over everything a suite run shows: responses, log entries, console output. */
import Anthropic from '@anthropic-ai/sdk';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startOpenAIFake } from '../helpers/fake-openai';
import { SECRET_MARKER, UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels, logEntry, postMessages, startGateway } from '../helpers/gateway';

let anthropic: FakeServer;
let openai: FakeServer;
beforeAll(async () => {
  anthropic = await startAnthropicFake();
  openai = await startOpenAIFake();
});
afterAll(async () => Promise.all([anthropic.close(), openai.close()]));

const post = (url: string, key: string, model: string, stream = true) => postMessages(url, key, model, { stream });

it('close(): stops accepting, lets short streams finish, ends long ones with an error event, flushes billing', async () => {
  const gw = await startGateway({ models: llmModels(anthropic.url, openai.url, ['claude-slow', 'claude-stall-midstream', 'claude-json']) });
  const { key } = addCaller(gw.store);
  const slow = await post(gw.url, key, 'claude-slow');
  const stalled = await post(gw.url, key, 'claude-stall-midstream');
  const closing = gw.router.close({ graceMs: 400 });
  const refused = await post(gw.url, key, 'claude-json', false);
  expect(refused.status).toBe(529);
  expect(refused.headers.get('x-should-retry')).toBe('true');
  expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('overloaded_error');
  expect(await slow.text()).toMatch(/event: message_stop\n/);
  expect(await stalled.text()).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error","message":"The gateway is shutting down; retry."\}\}\n\n$/);
  await closing;
  // Everything was settled and logged before close() resolved.
  const ids = [slow, stalled].map((r) => r.headers.get('request-id') as string);
  expect(gw.store.getLog().filter((e) => ids.includes(e.requestId)).map((e) => e.billingStatus)).toEqual(['billed', 'needs_review']);
  await gw.close();
});

it('close(): a JSON request still pending when the grace ends gets 529 whose request_id is its request-id header', async () => {
  const gw = await startGateway({ models: llmModels(anthropic.url, openai.url, ['claude-stall']) });
  try {
    const { key } = addCaller(gw.store);
    const pending = post(gw.url, key, 'claude-stall', false);
    for (let i = 0; i < 100 && anthropic.received.filter((r) => r.body.model === 'claude-stall').length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const closing = gw.router.close({ graceMs: 50 });
    const res = await pending;
    expect(res.status).toBe(529);
    const body = (await res.json()) as { request_id: string; error: { type: string } };
    expect(body.error.type).toBe('overloaded_error');
    expect(body.request_id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(body.request_id).toBe(res.headers.get('request-id'));
    await closing;
  } finally {
    await gw.close();
  }
});

it('no caller key, upstream key or upstream error text in any response, log line or console output', async () => {
  const written: string[] = [];
  const spies = [jest.spyOn(process.stdout, 'write'), jest.spyOn(process.stderr, 'write'), jest.spyOn(console, 'log'), jest.spyOn(console, 'error'), jest.spyOn(console, 'warn')];
  for (const spy of spies) spy.mockImplementation(((...args: unknown[]) => { written.push(args.map(String).join(' ')); return true; }) as never);
  const gw = await startGateway({
    models: llmModels(anthropic.url, openai.url, ['claude-stream', 'claude-status-401', 'claude-status-500', 'claude-midstream-error', 'gpt-error-wrapped', 'gpt-status-503', 'gpt-json']),
  });
  try {
    const { key } = addCaller(gw.store);
    const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
    const seen: string[] = [];
    for (const model of ['claude-stream', 'claude-status-401', 'claude-status-500', 'claude-midstream-error', 'gpt-error-wrapped', 'gpt-status-503', 'gpt-json']) {
      for (const stream of [false, true]) {
        const res = await post(gw.url, key, model, stream);
        seen.push(JSON.stringify([...res.headers]), await res.text());
        await logEntry(gw.store, res.headers.get('request-id') as string);
      }
      const err = await client.messages.create({ model, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
      seen.push(String(err), JSON.stringify(err));
    }
    seen.push(JSON.stringify(await (await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': `${key}x` } })).json()));
    const responses = seen.join('\n');
    const log = JSON.stringify(gw.store.getLog());
    for (const secret of [key, UPSTREAM_KEY]) {
      expect(responses).not.toContain(secret);
      expect(log).not.toContain(secret);
      expect(written.join('\n')).not.toContain(secret);
    }
    expect(responses).not.toContain(SECRET_MARKER);
    expect(written.join('\n')).not.toContain(SECRET_MARKER);
    expect(log).toContain(SECRET_MARKER); // the private detail is kept for diagnosis, in the log only
    expect(log).toContain('[redacted]'); // the upstream echoed our key; the log has it redacted
  } finally {
    for (const spy of spies) spy.mockRestore();
    await gw.close();
  }
});

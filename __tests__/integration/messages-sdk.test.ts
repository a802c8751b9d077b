/** POST /v1/messages through the official Anthropic SDKs (1.x and 0.x), over both adapters. */
import Anthropic from '@anthropic-ai/sdk';
import AnthropicV0 from 'anthropic-sdk-v0';
import { DELTAS, startAnthropicFake } from '../helpers/fake-anthropic';
import { OPENAI_DELTAS, startOpenAIFake } from '../helpers/fake-openai';
import { SECRET_MARKER, UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { addCaller, llmModels, logEntry, startGateway, type RunningGateway } from '../helpers/gateway';

let anthropic: FakeServer;
let openai: FakeServer;
let gw: RunningGateway;
let key: string;

beforeAll(async () => {
  anthropic = await startAnthropicFake();
  openai = await startOpenAIFake();
  gw = await startGateway({
    models: llmModels(anthropic.url, openai.url, ['claude-stream', 'claude-midstream-error', 'gpt-stream', 'gpt-error-wrapped']),
  });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([anthropic.close(), openai.close()]);
});

const clients = {
  'sdk 1.x': () => new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 }),
  'sdk 0.x': () => new AnthropicV0({ apiKey: key, baseURL: gw.url, maxRetries: 0 }) as unknown as Anthropic,
};
const cases = [
  ['anthropic', 'claude-stream', DELTAS.join(''), { input_tokens: 25, output_tokens: 15 }],
  ['openai', 'gpt-stream', OPENAI_DELTAS.join(''), { input_tokens: 20, output_tokens: 12, cache_read_input_tokens: 10 }],
] as const;
const params = (model: string) => ({ model, max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello' }] });

describe.each(Object.entries(clients))('%s', (_label, client) => {
  describe.each(cases)('over the %s adapter', (_adapter, model, text, usage) => {
    it('messages.create returns a complete message with the public model name', async () => {
      const message = await client().messages.create(params(model));
      expect(message).toMatchObject({ type: 'message', role: 'assistant', model, stop_reason: 'end_turn', stop_sequence: null, usage });
      expect(message.id).toMatch(/^msg_/);
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text })]);
    });

    it('messages.create({stream: true}) yields the event grammar in order', async () => {
      const stream = await client().messages.create({ ...params(model), stream: true });
      const types: string[] = [];
      let out = '';
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') out += event.delta.text;
        if (event.type === 'message_start') expect(event.message.model).toBe(model);
      }
      expect(out).toBe(text);
      expect(types[0]).toBe('message_start');
      expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    });

    it('messages.stream().finalMessage() accumulates the message and the final usage', async () => {
      const final = await client().messages.stream(params(model)).finalMessage();
      expect(final.content).toEqual([expect.objectContaining({ type: 'text', text })]);
      expect(final.usage).toMatchObject({ output_tokens: usage.output_tokens });
      expect(final.stop_reason).toBe('end_turn');
    });
  });

  it.each(['claude-midstream-error', 'gpt-error-wrapped'])('a mid-stream failure of %s surfaces as an API error with the standard code only', async (model) => {
    const stream = client().messages.stream(params(model));
    const err = (await stream.finalMessage().catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    const code = model.startsWith('gpt') ? 'api_error' : 'overloaded_error';
    expect((err as unknown as { type?: string }).type).toBe(code);
    expect((err as unknown as { error?: unknown }).error).toEqual({ type: 'error', error: { type: code, message: expect.any(String) } });
    const text = `${String(err.message)} ${JSON.stringify((err as { error?: unknown }).error ?? null)}`;
    expect(text).not.toContain(SECRET_MARKER);
    expect(text).not.toContain(UPSTREAM_KEY);
    const requestId = stream.request_id;
    expect(requestId).toMatch(/^req_/);
    const entry = await logEntry(gw.store, requestId as string);
    expect(entry).toMatchObject({ errorCode: code, status: 200, stream: true });
    expect(entry.detail).toContain(SECRET_MARKER);
  });
});

/**
 * The OpenAI Agents SDK through `/v1/responses`, set up as docs/agents.md tells users: a Runner with a function tool,
 * once replaying history (the SDK's default) and once chained with `previousResponseId` (the response store on,
 * streamed), over each upstream format in UPSTREAMS (a native Responses upstream keeps the chain itself: it goes up as
 * that upstream's own id); every call billed exactly its confirmed usage; the OpenAIProvider form too; no request
 * leaving 127.0.0.1 once tracing is off, while with tracing on the SDK posts the trace and the key to OpenAI.
 * Run for each release the suite tests (the pinned one, the newest), by the package name it is installed under.
 */
import path from 'node:path';
import type { Agent as AgentInstance, OpenAIClient } from '@openai/agents';
import { z } from 'zod';
import { anthropicAdapter, openaiChatAdapter, openaiResponsesAdapter, type ModelEntry } from '../../lib';
import { startScripted, startScriptedResponses, UNIT_PRICING, type ScriptedTurn, type ScriptedUpstream } from './fake-scripted';
import { addCaller, logEntry, startGateway, type RunningGateway } from './gateway';

/** The SDK's API as the pinned release types it; the newest keeps these names and shapes (the cases check it at run time). */
export type AgentsSdk = typeof import('@openai/agents');

export function agentsSdkCases(packageName: string): void {
  const { Agent, getGlobalTraceProvider, OpenAIProvider, Runner, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } = require(packageName) as AgentsSdk;

  type Json = Record<string, unknown>;

  /** One upstream the SDK is run over: how to start its fake and the adapter that reaches it. A third format is one more entry. */
  interface UpstreamCase {
    name: string;
    start(script: (body: Json) => ScriptedTurn): Promise<ScriptedUpstream>;
    adapter(url: string): ModelEntry['upstream'];
    /** The user turns the upstream received, as text, in order (tool results as `result:` + text). */
    turns(body: Json): string[];
    /** A native Responses upstream that stored the response: a chain goes up as its own `previous_response_id` with only the new items (docs/adapters.md). */
    chainsById?: boolean;
  }

  const textOf = (content: unknown): string => (typeof content === 'string' ? content : (content as Json[]).map((b) => (b.type === 'tool_result' ? `result:${textOf(b.content)}` : b.type === 'tool_use' ? `call:${JSON.stringify(b.input)}` : String(b.text ?? ''))).join(''));
  const UPSTREAMS: UpstreamCase[] = [
    {
      name: 'an Anthropic-format upstream', start: (s) => startScripted('anthropic', s), adapter: (url) => anthropicAdapter({ baseURL: url }),
      turns: (body) => (body.messages as Json[]).map((m) => `${String(m.role)}:${textOf(m.content)}`),
    },
    {
      name: 'an OpenAI-chat-format upstream', start: (s) => startScripted('openai', s), adapter: (url) => openaiChatAdapter({ baseURL: url }),
      turns: (body) => (body.messages as Json[]).filter((m) => m.role !== 'system').map((m) => m.role === 'tool' ? `user:result:${textOf(m.content)}` : `${String(m.role)}:${textOf(m.content ?? '')}${((m.tool_calls ?? []) as Json[]).map((c) => `call:${String((c.function as Json).arguments)}`).join('')}`),
    },
    {
      name: 'a native Responses upstream', start: startScriptedResponses, adapter: (url) => openaiResponsesAdapter({ baseURL: url }), chainsById: true,
      // A function call joins the assistant turn before it; its output is the next user turn.
      turns: (body) => (body.input as Json[]).reduce<string[]>((turns, item) => item.type === 'function_call' ? [...turns.slice(0, -1), `${turns.at(-1) ?? 'assistant:'}call:${String(item.arguments)}`]
        : [...turns, item.type === 'function_call_output' ? `user:result:${String(item.output)}` : `${String(item.role)}:${textOf(item.content)}`], []),
    },
  ];

  // The scripted model: a greeting without tools' use; asked about weather, it calls get_weather; given the result, it answers.
  const HELLO: ScriptedTurn = { text: ['Hi', ' there'], usage: { input: 9, output: 3 } };
  const CALL: ScriptedTurn = { text: ['Checking.'], calls: [{ id: 'toolu_01Weather', name: 'get_weather', input: { city: 'Paris' } }], usage: { input: 7, output: 40, cacheRead: 100 } };
  const ANSWER: ScriptedTurn = { text: ['Paris is', ' 21 °C.'], usage: { input: 5, output: 12, cacheRead: 300 } };
  /** Each turn's exact charge at UNIT_PRICING (1 per input token, 0.1 per cache read, 2 per output token), worked by hand. */
  const PRICE = new Map<ScriptedTurn, number>([[HELLO, 9 + 6], [CALL, 7 + 10 + 80], [ANSWER, 5 + 30 + 24]]);
  function script(body: Json): ScriptedTurn {
    const text = JSON.stringify(((body.messages ?? body.input) as Json[]).at(-1));
    if (text.includes('Paris: 21')) return ANSWER; // the last turn is the tool's result
    return text.includes('weather') ? CALL : HELLO;
  }

  /** Every fetch the file's code makes: 127.0.0.1 goes through, anything else is recorded and answered here, never sent. */
  const realFetch = globalThis.fetch;
  const escaped: Array<{ url: string; authorization: string | null; body: string }> = [];
  const sent: Json[] = [];
  beforeAll(() => {
    globalThis.fetch = async (input, init) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      if (url.hostname !== '127.0.0.1') {
        escaped.push({ url: request.url, authorization: request.headers.get('authorization'), body: await request.text() });
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      }
      if (url.pathname.endsWith('/v1/responses')) sent.push((await request.clone().json()) as Json);
      return realFetch(request);
    };
  });
  afterAll(async () => {
    await getGlobalTraceProvider().shutdown();
    globalThis.fetch = realFetch;
  });

  /** The `openai` the SDK itself depends on (resolved from the SDK, as a user's app would import it). */
  const agentsOpenai = require.resolve('@openai/agents-openai', { paths: [path.dirname(require.resolve(packageName))] });
  const { OpenAI } = require(require.resolve('openai', { paths: [path.dirname(agentsOpenai)] })) as { OpenAI: new (options: { baseURL: string; apiKey: string; maxRetries: number }) => OpenAIClient };

  const calledWith: Json[] = [];
  const getWeather = tool({
    name: 'get_weather', description: 'The weather in a city', parameters: z.object({ city: z.string() }),
    execute: ({ city }) => { calledWith.push({ city }); return `${city}: 21 °C`; },
  });

  const MODELS = UPSTREAMS.map((_, i) => `m${i}`);
  let fakes: ScriptedUpstream[];
  let gw: RunningGateway;
  let caller: { key: string; id: string };
  beforeAll(async () => {
    fakes = await Promise.all(UPSTREAMS.map((u) => u.start(script)));
    const models = UPSTREAMS.map((u, i): ModelEntry => ({ id: MODELS[i] as string, capability: 'llm', upstream: u.adapter((fakes[i] as ScriptedUpstream).url), agentReady: true, autoCache: false, pricing: UNIT_PRICING }));
    gw = await startGateway({ models, responses: { store: true } });
    caller = addCaller(gw.store, { balance: 10_000_000 });
    // The three lines of docs/agents.md#openai-agents-sdk (the SDK's default provider keeps the first client it is given).
    setDefaultOpenAIClient(new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: caller.key, maxRetries: 0 }));
    setOpenAIAPI('responses');
    setTracingDisabled(true);
  });
  afterAll(async () => {
    await gw.close();
    await Promise.all(fakes.map((f) => f.close()));
  });
  beforeEach(() => {
    calledWith.length = 0;
    sent.length = 0;
    escaped.length = 0;
  });

  /** Each model call's log line, from its response id, billed exactly the hand-worked price of its turn; the balance fell by their sum. */
  async function billedExactly(balanceBefore: number, responseIds: Array<string | undefined>, turns: ScriptedTurn[]): Promise<Array<string | null>> {
    expect(responseIds).toHaveLength(turns.length);
    const entries = await Promise.all(responseIds.map((id) => logEntry(gw.store, `req_${String(id).slice(5)}`)));
    entries.forEach((entry, i) => {
      const t = turns[i] as ScriptedTurn;
      expect(entry).toMatchObject({ endpoint: 'responses', status: 200, billingStatus: 'billed', charge: PRICE.get(t) });
      expect(entry.usage).toMatchObject({ inputTokens: t.usage.input, outputTokens: t.usage.output, cacheReadInputTokens: t.usage.cacheRead ?? 0 });
    });
    expect(balanceBefore - gw.store.getBalance(caller.id)).toBe(turns.reduce((sum, t) => sum + (PRICE.get(t) ?? NaN), 0));
    return entries.map((e) => e.detail);
  }

  describe.each(UPSTREAMS.map((u, i) => ({ ...u, model: MODELS[i] as string, fake: () => fakes[i] as ScriptedUpstream })))('the Agents SDK over $name', (upstream) => {
    const agent = new Agent({ name: 'Weather', instructions: 'You answer questions about the weather.', model: upstream.model, tools: [getWeather] });

    it('replays history: the second call carries the function_call_output, the tool got the scripted arguments, each call billed exactly', async () => {
      const before = gw.store.getBalance(caller.id);
      const result = await new Runner().run(agent, 'What is the weather in Paris?');
      expect(result.finalOutput).toBe('Paris is 21 °C.');
      expect(calledWith).toEqual([{ city: 'Paris' }]);
      expect(sent.map((body) => [body.stream, body.previous_response_id])).toEqual([[false, undefined], [false, undefined]]);
      const replayed = sent[1]?.input as Json[];
      expect(replayed.map((item) => item.type ?? item.role)).toEqual(['user', 'message', 'function_call', 'function_call_output']);
      expect(replayed.at(-1)).toMatchObject({ type: 'function_call_output', output: 'Paris: 21 °C' });
      expect(upstream.turns(upstream.fake().calls().at(-1)?.body as Json)).toEqual(['user:What is the weather in Paris?', 'assistant:Checking.call:{"city":"Paris"}', 'user:result:Paris: 21 °C']);
      await billedExactly(before, result.rawResponses.map((r) => r.responseId), [CALL, ANSWER]);
      expect(escaped).toEqual([]);
    });

    it('chains with previousResponseId, streamed: only new items are sent, the upstream gets the stored history (a native one its own id), each line says chained from which response and how', async () => {
      const before = gw.store.getBalance(caller.id);
      const first = await new Runner().run(agent, 'Hello', { stream: true });
      await first.completed; // streamed: the next call goes out the moment the stream ends
      expect(first.finalOutput).toBe('Hi there');
      const result = await new Runner().run(agent, 'And the weather in Paris?', { stream: true, previousResponseId: first.lastResponseId });
      await result.completed;
      expect(result.finalOutput).toBe('Paris is 21 °C.');
      expect(calledWith).toEqual([{ city: 'Paris' }]);
      expect(sent.map((body) => body.stream)).toEqual([true, true, true]);
      const [, second, third] = sent;
      expect(second).toMatchObject({ previous_response_id: first.lastResponseId, input: [{ role: 'user', content: 'And the weather in Paris?' }] });
      expect(third?.previous_response_id).toBe(result.rawResponses[0]?.responseId);
      expect((third?.input as Json[]).map((item) => item.type)).toEqual(['function_call_output']);
      const upstreamSent = upstream.fake().calls().slice(-3).map((c) => c.body as Json);
      if (upstream.chainsById) {
        // The upstream stored each answer (it refuses an id it did not issue): each chained call goes up as its own id, with the new items only.
        const chainedBy = upstreamSent.map((body) => body.previous_response_id);
        expect(chainedBy[0]).toBeUndefined();
        expect(chainedBy.slice(1)).toEqual([expect.stringMatching(/^resp_fake_/), expect.stringMatching(/^resp_fake_/)]);
        expect(new Set(chainedBy).size).toBe(3);
        expect(upstreamSent.map((body) => upstream.turns(body))).toEqual([['user:Hello'], ['user:And the weather in Paris?'], ['user:result:Paris: 21 °C']]);
      } else {
        expect(upstream.turns(upstreamSent[2] as Json)).toEqual([
          'user:Hello', 'assistant:Hi there', 'user:And the weather in Paris?', 'assistant:Checking.call:{"city":"Paris"}', 'user:result:Paris: 21 °C',
        ]);
      }
      const ids = [first.lastResponseId, ...result.rawResponses.map((r) => r.responseId)];
      const details = await billedExactly(before, ids, [HELLO, CALL, ANSWER]);
      expect(details[0] ?? '').not.toContain('chain');
      for (const i of [1, 2]) {
        expect(details[i]).toContain(`chained from ${String(ids[i - 1])}`);
        if (upstream.chainsById) expect(details[i]).toContain("chain sent as openai-responses's previous_response_id");
        else expect(details[i]).not.toContain('chain sent');
      }
      expect(escaped).toEqual([]);
    });
  });

  describe('tracing', () => {
    const agent = (): AgentInstance => new Agent({ name: 'Greeter', instructions: 'Greet.', model: MODELS[0] });
    afterAll(() => {
      delete process.env.OPENAI_API_KEY;
      setTracingDisabled(true);
    });

    it('on (the SDK default outside tests) it posts the trace and the key to api.openai.com; setTracingDisabled(true) keeps everything on 127.0.0.1', async () => {
      process.env.OPENAI_API_KEY = caller.key; // the usual setup: the gateway key in OpenAI's variable
      setTracingDisabled(false);
      expect((await new Runner().run(agent(), 'Hello')).finalOutput).toBe('Hi there');
      await getGlobalTraceProvider().forceFlush();
      expect(escaped.map((r) => [r.url, r.authorization])).toContainEqual(['https://api.openai.com/v1/traces/ingest', `Bearer ${caller.key}`]);
      escaped.length = 0;
      setTracingDisabled(true);
      expect((await new Runner().run(agent(), 'Hello')).finalOutput).toBe('Hi there');
      await getGlobalTraceProvider().forceFlush();
      expect(escaped).toEqual([]);
    });
  });

  it('the provider form (no `openai` import): an OpenAIProvider with the base URL and key, given to the Runner', async () => {
    const before = gw.store.getBalance(caller.id);
    const runner = new Runner({ modelProvider: new OpenAIProvider({ baseURL: `${gw.url}/v1`, apiKey: caller.key }) });
    const result = await runner.run(new Agent({ name: 'Greeter', instructions: 'Greet.', model: MODELS[0] }), 'Hello');
    expect(result.finalOutput).toBe('Hi there');
    await billedExactly(before, [result.lastResponseId], [HELLO]);
    expect(escaped).toEqual([]);
  });
}

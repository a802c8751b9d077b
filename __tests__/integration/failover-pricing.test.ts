/**
 * A failover group whose members speak different formats (examples/gateway.yaml's `claude-or-gpt`, `any-chat`): each request's cache
 * figures are priced by the format of the member that served it, which its attempt record names. A host's own failover
 * wrapper does the same through the adapter contract (`ctx.recordAttempt({ …, format })`).
 */
import { anthropicAdapter, failover, openaiChatAdapter, type MessagesAdapter } from '../../lib';
import { sendJson, startAgentServer, type AgentServer } from '../helpers/fake-agent-server';
import { startOpenAIFake } from '../helpers/fake-openai';
import { failWith, startFake, UPSTREAM_KEY, type FakeServer } from '../helpers/fake-server';
import { addCaller, logEntry, postMessages, startGateway, type RunningGateway } from '../helpers/gateway';

// One minor unit per input token, two per output token; every cache price left to its format's default.
const PRICING = { input: 1_000_000, output: 2_000_000 };
const CLAUDE_USAGE = { input_tokens: 20, cache_read_input_tokens: 1000, cache_creation_input_tokens: 100, cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 0 }, output_tokens: 12 };

let down: FakeServer;
let gpt: FakeServer;
let claude: AgentServer;
let gw: RunningGateway;
let key: string;

beforeAll(async () => {
  down = await startFake((_req, res) => failWith(res, 503));
  gpt = await startOpenAIFake(); // usage: 30 prompt tokens of which 10 cached, 12 completion tokens
  claude = await startAgentServer((req, res) => sendJson(res, 200, {
    id: 'msg_1', type: 'message', role: 'assistant', model: req.body?.model, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: CLAUDE_USAGE,
  }));
  const options = { apiKey: UPSTREAM_KEY };
  const claudeDown = anthropicAdapter({ ...options, baseURL: down.url, name: 'claude-down' });
  const gptDown = openaiChatAdapter({ ...options, baseURL: down.url, name: 'gpt-down' });
  const claudeUp = anthropicAdapter({ ...options, baseURL: claude.url, name: 'claude' });
  const gptUp = openaiChatAdapter({ ...options, baseURL: gpt.url, name: 'gpt' });
  // A host's own wrapper: sends every call to the OpenAI upstream and says so in its attempt record.
  const hostWrapper: MessagesAdapter = {
    kind: 'messages', name: 'host-wrapper', format: 'anthropic',
    create: async (request, ctx) => {
      const answer = await gptUp.create(request, ctx);
      ctx.recordAttempt?.({ upstream: gptUp.name, ok: true, ms: 1, format: 'openai' });
      return answer;
    },
    stream: (request, ctx) => gptUp.stream(request, ctx),
  };
  const entry = (id: string, upstream: MessagesAdapter) => ({ id, capability: 'llm' as const, upstream, upstreamModel: 'gpt-json', pricing: PRICING });
  gw = await startGateway({
    models: [
      entry('claude-or-gpt', failover([claudeDown, gptUp], { backoffMs: 1, failureThreshold: 100 })),
      entry('gpt-or-claude', failover([gptDown, claudeUp], { backoffMs: 1, failureThreshold: 100 })),
      entry('host-wrapped', hostWrapper),
    ],
  });
  ({ key } = addCaller(gw.store));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([down.close(), gpt.close(), claude.close()]);
});

async function charged(model: string): Promise<Awaited<ReturnType<typeof logEntry>>> {
  const res = await postMessages(gw.url, key, model);
  expect(res.status).toBe(200);
  return logEntry(gw.store, res.headers.get('request-id') as string);
}

it('Anthropic member fails, the OpenAI member serves: cache reads at the OpenAI default (half the input price), exactly', async () => {
  const entry = await charged('claude-or-gpt');
  expect(entry.attempts.map((a) => [a.upstream, a.ok, a.format])).toEqual([['claude-down', false, 'anthropic'], ['gpt', true, 'openai']]);
  expect(entry.usage).toMatchObject({ inputTokens: 20, cacheReadInputTokens: 10, outputTokens: 12 });
  // 20 × 1 + 10 × 0.5 + 12 × 2 (the Anthropic default would give 45; pricing as input, 54)
  expect([entry.cost, entry.charge]).toEqual(['49', 49]);
});

it('the reverse: the OpenAI member fails, the Anthropic member serves: reads at 0.1 ×, writes at 1.25 ×, exactly', async () => {
  const entry = await charged('gpt-or-claude');
  expect(entry.attempts.map((a) => [a.upstream, a.ok, a.format])).toEqual([['gpt-down', false, 'openai'], ['claude', true, 'anthropic']]);
  expect(entry.usage).toMatchObject({ inputTokens: 20, cacheReadInputTokens: 1000, cacheWrite5mInputTokens: 100, outputTokens: 12 });
  // 20 × 1 + 1000 × 0.1 + 100 × 1.25 + 12 × 2 (the OpenAI default would give 644; pricing as input, 1144)
  expect([entry.cost, entry.charge]).toEqual(['269', 269]);
});

it("a host's own wrapper names the serving format in its attempt record, and that format prices the request", async () => {
  const entry = await charged('host-wrapped');
  expect(entry.attempts).toEqual([expect.objectContaining({ upstream: 'gpt', ok: true, format: 'openai' })]);
  expect([entry.cost, entry.charge]).toEqual(['49', 49]); // the wrapper's own format (anthropic) would give 45
});

/**
 * An upstream's refusal of a request (a 400) reaches an agent-ready model's client in the upstream's words, but with no
 * URL, no upstream host and no key in them (README, Errors: hosts and keys never reach a client): on every route, over
 * every upstream format (Anthropic, chat, a native Responses upstream), JSON and stream.
 */
import { anthropicAdapter, openaiChatAdapter, openaiResponsesAdapter, type ModelEntry } from '../../lib';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { addCaller, PRICING, startGateway, type RunningGateway } from '../helpers/gateway';
import { startScriptedUpstream, type ScriptedUpstream } from '../helpers/scripted-upstream';

/** A host the gateway knows (another model's upstream), never called: named bare in the words, without a scheme or a port. */
const OTHER_HOST = 'upstream-b.internal';

let up: ScriptedUpstream;
let gw: RunningGateway;
let key: string;
let words: string;
beforeAll(async () => {
  up = await startScriptedUpstream();
  const http = { baseURL: up.url, apiKey: UPSTREAM_KEY };
  const models: ModelEntry[] = [
    { id: 'an', capability: 'llm', upstream: anthropicAdapter(http), upstreamModel: 'up-an', agentReady: true, pricing: PRICING },
    { id: 'oa', capability: 'llm', upstream: openaiChatAdapter(http), upstreamModel: 'up-oa', agentReady: true, pricing: PRICING },
    { id: 'rs', capability: 'llm', upstream: openaiResponsesAdapter(http), upstreamModel: 'up-rs', agentReady: true, pricing: PRICING },
    { id: 'other', capability: 'llm', upstream: anthropicAdapter({ baseURL: `http://${OTHER_HOST}:9`, apiKey: UPSTREAM_KEY }), pricing: PRICING },
  ];
  gw = await startGateway({ models });
  ({ key } = addCaller(gw.store));
  const host = new URL(up.url).host;
  words = `tools.0.input_schema: bad schema on ${up.url}/v1/messages (host ${host}, peer ${OTHER_HOST}, docs https://docs.example.com/errors?x=1). Key ${UPSTREAM_KEY}.`;
  for (const [model, body] of [
    ['up-an', { type: 'error', error: { type: 'invalid_request_error', message: words } }],
    ['up-oa', { error: { message: words, type: 'invalid_request_error', param: null, code: null } }],
    ['up-rs', { error: { message: words, type: 'invalid_request_error', param: 'tools[0]', code: 'invalid_value' } }],
  ] as const) up.answer(model, { error: { status: 400, body: JSON.stringify(body) } });
});
afterAll(async () => {
  await gw.close();
  await up.close();
});

/** The upstream's words as a client reads them: every URL, host and key taken out, the rest kept. */
const SHOWN = 'tools.0.input_schema: bad schema on [url] (host [host], peer [host], docs [url]). Key [redacted].';

const BODIES: Record<string, (model: string) => Record<string, unknown>> = {
  '/v1/responses': (model) => ({ model, input: 'Hi' }),
  '/v1/messages': (model) => ({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }),
  '/v1/chat/completions': (model) => ({ model, messages: [{ role: 'user', content: 'Hi' }] }),
};
const CASES = Object.keys(BODIES).flatMap((path) => ['an', 'oa', 'rs'].flatMap((model) => [false, true].map((stream) => [path, model, stream] as const)));

it.each(CASES)('%s on %s (stream %s): the words, without the URLs, hosts and key', async (path, model, stream) => {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ ...BODIES[path]?.(model), stream }),
  });
  const text = await res.text();
  expect(res.status).toBe(400);
  const error = (JSON.parse(text) as { error: { message: string } }).error;
  expect(error.message).toBe(SHOWN);
  expect(text).not.toContain(new URL(up.url).port);
  expect(text).not.toMatch(/127\.0\.0\.1|http|upstream-b|SECRET/i);
});

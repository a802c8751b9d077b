/**
 * Each built-in adapter reaches its provider's documented endpoint from the base URL forms the
 * providers and their SDKs document: with or without the version segment, with a trailing slash.
 * The fakes answer only at the documented paths (anything else is a 404, as the providers answer).
 */
import Anthropic from '@anthropic-ai/sdk';
import { CohereClient, CohereClientV2 } from 'cohere-ai';
import { anthropicAdapter, cohereAdapter, jinaAdapter, openaiChatAdapter, teiAdapter, voyageAdapter } from '../../lib';
import type { MessagesAdapter, ModelEntry, RerankAdapter } from '../../lib';
import { startFake, UPSTREAM_KEY, type FakeServer, type Received } from '../helpers/fake-server';
import { addCaller, startGateway, type RunningGateway } from '../helpers/gateway';
import { refused } from '../helpers/config-error';

const USAGE = { input_tokens: 7, output_tokens: 3 };
/** The providers' answers, by the path each documents. */
const ANSWERS: Record<string, (req: Received) => unknown> = {
  '/v1/messages': (req) => ({ id: 'msg_1', type: 'message', role: 'assistant', model: req.body.model, content: [{ type: 'text', text: 'at /v1/messages' }], stop_reason: 'end_turn', stop_sequence: null, usage: USAGE }),
  '/v1/chat/completions': (req) => ({ id: 'c1', object: 'chat.completion', created: 1, model: req.body.model, choices: [{ index: 0, message: { role: 'assistant', content: 'at /v1/chat/completions' }, finish_reason: 'stop' }], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } }),
  '/v2/rerank': () => ({ id: 'r2', results: [{ index: 0, relevance_score: 0.5 }], meta: { billed_units: { input_tokens: 4 } } }),
  '/v1/rerank': () => ({ id: 'r1', results: [{ index: 0, relevance_score: 0.5 }], data: [{ index: 0, relevance_score: 0.5 }], meta: { billed_units: { input_tokens: 4 } }, usage: { total_tokens: 4 } }),
  '/rerank': () => [{ index: 0, score: 0.5 }],
};

let fake: FakeServer;
let gw: RunningGateway;
let key: string;
/** Each model: the adapter under test, and the path its call must reach. */
const cases: Array<{ id: string; adapter: MessagesAdapter | RerankAdapter; path: string }> = [];

beforeAll(async () => {
  fake = await startFake((req, res) => {
    const [prefix, path] = req.path.startsWith('/openrouter/api/') ? ['/openrouter/api', req.path.slice('/openrouter/api'.length)] : ['', req.path];
    const answer = Object.hasOwn(ANSWERS, path) && (prefix === '' || path === '/v1/chat/completions') ? ANSWERS[path] : undefined;
    res.writeHead(answer ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer ? answer(req) : { error: { type: 'not_found_error', message: `no route ${req.path}` } }));
  });
  const url = fake.url;
  const forms = (base: string): string[] => [base, `${base}/`, `${base}/v1`, `${base}/v1/`];
  const add = (name: string, adapter: MessagesAdapter | RerankAdapter, path: string): void => {
    cases.push({ id: `${name}-${cases.length}`, adapter, path });
  };
  for (const baseURL of forms(url)) {
    add('anthropic', anthropicAdapter({ baseURL, apiKey: UPSTREAM_KEY }), '/v1/messages');
    add('openai', openaiChatAdapter({ baseURL, apiKey: UPSTREAM_KEY }), '/v1/chat/completions');
    add('jina', jinaAdapter({ baseURL, apiKey: UPSTREAM_KEY }), '/v1/rerank');
    add('voyage', voyageAdapter({ baseURL, apiKey: UPSTREAM_KEY }), '/v1/rerank');
  }
  add('openrouter', openaiChatAdapter({ baseURL: `${url}/openrouter/api/v1`, apiKey: UPSTREAM_KEY }), '/openrouter/api/v1/chat/completions');
  for (const baseURL of [url, `${url}/`, `${url}/v2`, `${url}/v2/`]) add('cohere', cohereAdapter({ baseURL, apiKey: UPSTREAM_KEY }), '/v2/rerank');
  add('cohere', cohereAdapter({ baseURL: `${url}/v1`, apiKey: UPSTREAM_KEY }), '/v1/rerank'); // the version in the base picks the API
  add('cohere', cohereAdapter({ baseURL: `${url}/v1/`, apiKey: UPSTREAM_KEY, apiVersion: 'v1' }), '/v1/rerank');
  add('cohere', cohereAdapter({ baseURL: url, apiKey: UPSTREAM_KEY, apiVersion: 'v1' }), '/v1/rerank');
  for (const baseURL of [url, `${url}/`]) add('tei', teiAdapter({ baseURL, apiKey: UPSTREAM_KEY }), '/rerank');
  const models: ModelEntry[] = cases.map(({ id, adapter }) => ({ id, capability: adapter.kind === 'rerank' ? 'rerank' : 'llm', upstream: adapter, free: true }) as ModelEntry);
  gw = await startGateway({ models });
  key = addCaller(gw.store).key;
});
afterAll(async () => {
  await gw.close();
  await fake.close();
});

it('every base URL form reaches the documented path, through the official SDKs, and the adapter reports that URL as its endpoint', async () => {
  const anthropic = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
  const cohereV1 = new CohereClient({ token: key, environment: gw.url, maxRetries: 0 } as never);
  const cohereV2 = new CohereClientV2({ token: key, environment: gw.url, maxRetries: 0 } as never);
  for (const { id, adapter, path } of cases) {
    const before = fake.received.length;
    if (adapter.kind === 'messages') {
      const message = await anthropic.messages.create({ model: id, max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('at /v1/') })]);
    } else {
      const client = id.startsWith('cohere') && path === '/v1/rerank' ? cohereV1 : cohereV2;
      const answer = await client.rerank({ model: id, query: 'q', documents: ['d'] } as never) as { results: Array<{ index: number }> };
      expect(answer.results).toEqual([expect.objectContaining({ index: 0 })]);
    }
    expect([id, fake.received.slice(before).map((r) => r.path)]).toEqual([id, [path]]);
    expect([id, adapter.endpoint]).toEqual([id, `${fake.url}${path}`]);
  }
});

it('a Cohere base URL whose version contradicts apiVersion is refused at construction, naming both', () => {
  expect(() => cohereAdapter({ baseURL: `${fake.url}/v1`, apiVersion: 'v2' })).toThrow(refused('ERR_MGW_CONFLICTING_OPTIONS', 'cohere adapter: option "baseURL" ends in /v1 but "apiVersion" is "v2"'));
});

/**
 * Every table keyed by a name from outside (a client, an upstream, a config, a host's option) finds
 * only its own entries: each is fed every name of Object.prototype (`constructor`, `toString`,
 * `__proto__`…) and must answer as it does for any unknown name. The wire entry points get the same
 * names through HTTP in __tests__/integration/prototype-keys.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMetrics, GatewayError, nodeHttpFetch, type RequestLogEntry } from '../../lib';
import { pricingProblem, ratesOf } from '../../lib/billing/pricing';
import { checkKnownOptions } from '../../lib/foundation/check-options';
import { buildModels } from '../../lib/cli/build';
import { ConfigError, parseConfig } from '../../lib/cli/config';
import { parseCommandLine } from '../../lib/cli/usage';
import { finishReasonOf, stopReasonOf } from '../../lib/formats/openai-chat/tables';
import { toChatRequest } from '../../lib/formats/openai-chat/request-to-chat';
import { nameRestorer } from '../../lib/formats/openai-chat/tool-names';
import { ownEntry } from '../../lib/foundation/own';
import { findUnsupportedAgentChat } from '../../lib/schemas/agent-chat';
import { findUnsupportedChat } from '../../lib/schemas/chat';
import { findUnsupported } from '../../lib/schemas/messages';
import { streamErrorFrom } from '../../lib/formats/anthropic';
import type { UpstreamFormat } from '../../lib/billing/figures';
import type { MessagesRequest } from '../../lib/messages/request';
import { PROTOTYPE_NAMES } from '../helpers/prototype-names';
import { refused } from '../helpers/config-error';


/** An object with `name` as its own key, as JSON.parse makes it (`__proto__` included: an own key, not the prototype). */
function withOwn(base: Record<string, unknown>, name: string, value: unknown = 1): Record<string, unknown> {
  const rest = JSON.stringify(base).slice(1); // "}" or "\"a\":1}"
  return JSON.parse(`{${JSON.stringify(name)}:${JSON.stringify(value)}${rest === '}' ? '' : ','}${rest}`) as Record<string, unknown>;
}

/** Engine source (`function Object() { [native code] }`) or a function's name must never reach a message. */
const NO_ENGINE_TEXT = /native code|function /;

describe.each(PROTOTYPE_NAMES.map((n) => [n]))('%s', (name) => {
  it('ownEntry finds only own entries', () => {
    expect(ownEntry({ a: 1 }, name)).toBeUndefined();
    expect(ownEntry(withOwn({}, name, 7) as Record<string, number>, name)).toBe(7);
  });

  it('stop and finish reasons, both ways: an unknown reason', () => {
    expect(stopReasonOf(name, false)).toBe('end_turn');
    expect(stopReasonOf(name, true)).toBe('tool_use');
    expect(finishReasonOf(name)).toBe('stop');
  });

  it('a top-level Messages field for an OpenAI-format upstream: refused naming it, as any unknown field', () => {
    const request = withOwn({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, name) as unknown as MessagesRequest;
    let thrown: unknown;
    try {
      toChatRequest(request, 'max_tokens', false);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect(thrown).toMatchObject({ code: 'invalid_request_error', message: `${name}: an OpenAI-format upstream has no such field` });
  });

  it('V1 refusals by name (Messages, chat, chat agent) do not refuse it by name', () => {
    const body = withOwn({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, name);
    expect(findUnsupported(body)).toBeUndefined();
    expect(findUnsupportedChat(body)).toBeUndefined();
    expect(findUnsupportedAgentChat(body)).toBeUndefined();
  });

  it('a pricing key: not a price, with no "use pricing.…" suggestion', () => {
    const problem = pricingProblem(withOwn({ input: 1 }, name) as never);
    expect(problem).toBe(`pricing.${name} is not a price (prices: input, cacheRead, cacheWrite5m, cacheWrite1h, output, webSearch, searchUnit)`);
  });

  it('an adapter format: priced as one of no known format', () => {
    expect(ratesOf({ input: 100 }, name as UpstreamFormat)).toEqual(ratesOf({ input: 100 }, undefined));
  });

  it('an option key: unknown', () => {
    expect(() => checkKnownOptions('f', withOwn({}, name), ['store'])).toThrow(refused('ERR_MGW_UNKNOWN_OPTION', `f: unknown option "${name}"`));
  });

  it('a tool name given back: as it came', () => {
    expect(nameRestorer([{ name: 'x'.repeat(70), input_schema: { type: 'object' } }])(name)).toBe(name);
  });

  it('an upstream stream error type: api_error', () => {
    expect(streamErrorFrom({ type: 'error', error: { type: name, message: 'x' } }, 'up').code).toBe('api_error');
  });

  it('a config: an environment reference is not set; an upstream of that name is itself; a model naming one not defined is refused', () => {
    const config = (upstreams: string, upstream: string, apiKey = 'k'): string => `
upstreams:
  ${JSON.stringify(upstreams)}: { type: anthropic, baseURL: "http://127.0.0.1:9", apiKey: "${apiKey}" }
models:
  - { id: m, capability: llm, upstream: ${JSON.stringify(upstream)}, pricing: { input: 1 } }
`;
    for (const env of [{}, process.env]) {
      expect(() => parseConfig(config('a', 'a', `\${${name}}`), env)).toThrow(new ConfigError(`upstreams.a.apiKey: environment variable ${name} is not set; set it, give a default (\${${name}:-value}) or write the value in the file`));
    }
    const built = buildModels(parseConfig(config(name, name), {}));
    expect(built.models[0]?.upstream.name).toBe('anthropic');
    expect(Object.keys(built.upstreams)).toEqual([name]);
    expect(() => buildModels(parseConfig(config('a', name), {}))).toThrow(new ConfigError(`models[0].upstream: "${name}" is not in upstreams (defined: a)`));
  });

  it('a command-line option: refused as any unknown one', () => {
    expect(() => parseCommandLine(['serve', `--${name}`])).toThrow(/Unknown option/);
  });

  it('an endpoint label in the metrics: no GenAI operation', async () => {
    const metrics = createMetrics();
    const entry = {
      requestId: 'r', callerId: 'c', endpoint: name, model: 'm', stream: false, status: 200, errorCode: null, usage: null, cost: '0', charge: 0,
      billingStatus: 'not_billed', startedAt: 0, durationMs: 1, ttfbMs: null, upstream: 'u', detail: null, user: null, attempts: [],
    } satisfies RequestLogEntry;
    expect(() => metrics.requestFinished?.(entry)).not.toThrow();
    expect(await metrics.registry.metrics()).not.toMatch(/gen_ai_server_request_duration_seconds_count\{/);
  });
});

it('an upstream response header: only the ones it sent (nodeHttpFetch)', async () => {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'x-own': 'yes' }).end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const fetch = nodeHttpFetch();
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { method: 'GET', headers: {} } as never);
    expect(res.headers.get('x-own')).toBe('yes');
    for (const name of PROTOTYPE_NAMES) expect(res.headers.get(name)).toBeNull();
    await res.text();
  } finally {
    server.close();
  }
});

it('no message names engine source', () => {
  for (const name of PROTOTYPE_NAMES) {
    expect(pricingProblem(withOwn({ input: 1 }, name) as never)).not.toMatch(NO_ENGINE_TEXT);
  }
});

/** Construction-time checks: each names the option and the fix; the caller's object is never changed. */
import http from 'node:http';
import { anthropicAdapter, cohereAdapter, createGatewayRouter, ERROR_STATUS, GatewayError, MemoryStore, nodeHttpFetch, openaiChatAdapter, proxyChatCompletions, proxyMessages, resolveOptions, undiciFetch } from '../../lib';
import { Agent as UndiciAgent } from 'undici';
import type { ConfigErrorCode, GatewayOptions, ModelEntry } from '../../lib';
import { refused } from '../helpers/config-error';
import { callerFacingMessage, upstreamError } from '../../lib/upstreams/http/errors';

const llm = anthropicAdapter({ baseURL: 'http://127.0.0.1:1' });
const rerank = cohereAdapter({ baseURL: 'http://127.0.0.1:1' });
const model = (extra: Partial<ModelEntry> = {}): ModelEntry => ({ id: 'm', capability: 'llm', upstream: llm, pricing: { input: 1, output: 2 }, ...extra });
const build = (options: Partial<GatewayOptions>) => () => createGatewayRouter({ store: new MemoryStore(), models: [model()], ...options } as GatewayOptions);

describe('createGatewayRouter options', () => {
  it.each<[string, ConfigErrorCode, Partial<GatewayOptions>, RegExp]>([
    ['no store', 'ERR_MGW_STORE_CONTRACT', { store: undefined as never }, /option "store" must implement findCaller, reserve, renewHolds, settle, release, appendLog/],
    ['store missing a method', 'ERR_MGW_STORE_CONTRACT', { store: { findCaller: () => undefined } as never }, /must implement reserve, renewHolds, settle, release, appendLog/],
    ['no models', 'ERR_MGW_CATALOG_EMPTY', { models: undefined as never }, /option "models" must be a non-empty array/],
    ['empty models', 'ERR_MGW_CATALOG_EMPTY', { models: [] }, /must list at least one model/],
    ['unpriced model', 'ERR_MGW_CATALOG_INVALID_MODEL', { models: [model({ pricing: undefined })] }, /models\[0\]: "m" has no "pricing"; set pricing .* or mark it \{ free: true \}/],
    ['price with 7 decimals', 'ERR_MGW_CATALOG_INVALID_MODEL', { models: [model({ pricing: { input: 1.0000001 } })] }, /pricing.input must be a non-negative number of minor units per million tokens, at most 1000000000 and with at most 6 decimals/],
    ['negative price', 'ERR_MGW_CATALOG_INVALID_MODEL', { models: [model({ pricing: { input: 1, output: -1 } })] }, /pricing.output must be a non-negative number/],
    ['bad capability', 'ERR_MGW_CATALOG_INVALID_MODEL', { models: [model({ capability: 'vision' as never })] }, /"capability" of "m" must be "llm" or "rerank"/],
    ['adapter of the wrong kind', 'ERR_MGW_CATALOG_INVALID_MODEL', { models: [model({ upstream: rerank })] }, /"upstream" of "m" must be a messages adapter/],
    ['duplicate ids', 'ERR_MGW_CATALOG_DUPLICATE_ID', { models: [model(), model()] }, /the id "m" is listed twice/],
    ['bad onSettled', 'ERR_MGW_INVALID_OPTION', { onSettled: 5 as never }, /option "onSettled" must be a function/],
    ['bad version list', 'ERR_MGW_INVALID_OPTION', { versions: ['june'] }, /option "versions" must be a non-empty list of dates/],
    ['bad limits', 'ERR_MGW_INVALID_INTEGER', { limits: { defaults: { rpm: -1 } } }, /option "defaults.rpm" must be a non-negative integer/],
    ['bad hold lease', 'ERR_MGW_INVALID_DURATION', { holdLeaseMs: 0 }, /createGatewayRouter: option "holdLeaseMs" must be an integer of at least 100 ms/],
    ['bad slot lease', 'ERR_MGW_INVALID_DURATION', { limits: { slotLeaseMs: 10 } }, /option "slotLeaseMs" must be an integer of at least 100 ms/],
    ['a redis that is not a client', 'ERR_MGW_INVALID_OPTION', { limits: { redis: {} } }, /option "redis" must be an ioredis client/],
    ['bad rerank bound', 'ERR_MGW_INVALID_INTEGER', { rerank: { maxDocuments: 0 } }, /option "rerank.maxDocuments" must be a positive integer/],
    ['observers not a list', 'ERR_MGW_INVALID_OPTION', { observers: 'otel' as never }, /option "observers" must be an array of observers \(e.g. \[otelObserver\(meter\)\]\)/],
    ['a null observer', 'ERR_MGW_INVALID_OPTION', { observers: [null as never] }, /option "observers" must be an array of observers/],
    ['no keep-alive interval', 'ERR_MGW_INVALID_DURATION', { keepAliveMs: 0 }, /createGatewayRouter: option "keepAliveMs" must be a positive integer of milliseconds \(default 15000\), e.g. keepAliveMs: 15000/],
    ['a keep-alive interval in words', 'ERR_MGW_INVALID_DURATION', { keepAliveMs: '15s' as never }, /option "keepAliveMs" must be a positive integer of milliseconds/],
  ])('fails at construction on %s', (_name, code, options, message) => {
    expect(build(options)).toThrow(refused(code, message));
  });

  it('the stream proxies check their keep-alive interval too, and default it to 15 s', () => {
    expect(() => proxyMessages({ keepAliveMs: 1.5 })).toThrow(refused('ERR_MGW_INVALID_DURATION', /proxyMessages: option "keepAliveMs" must be a positive integer/));
    expect(() => proxyChatCompletions({ keepAliveMs: -1 })).toThrow(refused('ERR_MGW_INVALID_DURATION', /proxyChatCompletions: option "keepAliveMs"/));
    expect(resolveOptions({ store: new MemoryStore(), models: [model()] }).keepAliveMs).toBe(15_000);
  });

  it.each<[string, () => unknown, RegExp]>([
    ['a router option in the wrong case', build({ bodylimit: '1mb' } as never), /^createGatewayRouter: unknown option "bodylimit"; did you mean "bodyLimit"\?$/],
    ['a misspelt router option', build({ storeTimeoutMS: 5 } as never), /unknown option "storeTimeoutMS"; did you mean "storeTimeoutMs"\?/],
    ['a router option like none', build({ upstreams: [] } as never), /unknown option "upstreams"; the options are store, models, versions, bodyLimit/],
    ['an adapter option in the wrong case', () => anthropicAdapter({ baseURL: 'http://x', apikey: 'k' } as never), /^anthropic adapter: unknown option "apikey"; did you mean "apiKey"\?$/],
    ["another adapter's option", () => openaiChatAdapter({ baseURL: 'http://x', version: '1' } as never), /openai adapter: unknown option "version"/],
    ['a rerank adapter option', () => cohereAdapter({ baseURL: 'http://x', apiversion: 'v1' } as never), /cohere adapter: unknown option "apiversion"; did you mean "apiVersion"\?/],
  ])('refuses %s, naming the nearest known one', (_name, make, message) => {
    expect(make).toThrow(refused('ERR_MGW_UNKNOWN_OPTION', message));
  });

  it('accepts a model marked free without pricing', () => {
    expect(build({ models: [model({ pricing: undefined, free: true })] })).not.toThrow();
  });

  it('never mutates the caller object and freezes the resolved config', () => {
    const options: GatewayOptions = { store: new MemoryStore(), models: [model()], limits: { defaults: { rpm: 5 } } };
    const before = JSON.stringify({ ...options, store: undefined, models: options.models.map((m) => ({ ...m, upstream: undefined })) });
    const config = resolveOptions(options);
    expect(JSON.stringify({ ...options, store: undefined, models: options.models.map((m) => ({ ...m, upstream: undefined })) })).toBe(before);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.catalog.models[0])).toBe(true);
    expect(config.versions).toEqual(['2023-01-01', '2023-06-01', '2026-10-21']); // complete: the default filled in
    expect(resolveOptions({ ...options, versions: ['2023-06-01'] }).versions).toEqual(['2023-06-01']);
  });

  it('adapters check their own options', () => {
    expect(() => anthropicAdapter({ baseURL: 'api.example.com' })).toThrow(refused('ERR_MGW_INVALID_OPTION', /option "baseURL" must be an http\(s\) URL/));
    expect(() => openaiChatAdapter({ baseURL: 'http://x', maxTokensField: 'max' as never })).toThrow(refused('ERR_MGW_INVALID_OPTION', /option "maxTokensField"/));
    expect(() => anthropicAdapter({ baseURL: 'http://x', timeouts: { idleMs: -1 } })).toThrow(refused('ERR_MGW_INVALID_DURATION', /option "timeouts.idleMs"/));
    for (const bad of [0, 1.5, Infinity]) expect(() => nodeHttpFetch({ maxSockets: bad })).toThrow(refused('ERR_MGW_INVALID_INTEGER', /option "maxSockets" must be a positive integer \(leave it out for no cap\)/));
    expect(() => nodeHttpFetch({ connectMs: 0 })).toThrow(refused('ERR_MGW_INVALID_DURATION', /option "connectMs" must be a positive integer of milliseconds/));
    expect(() => nodeHttpFetch({ http: new http.Agent(), maxSockets: 4 })).toThrow(refused('ERR_MGW_CONFLICTING_OPTIONS', /with your own "http"\/"https" agents, set them there/));
    for (const bad of [0, 1.5, Infinity]) expect(() => undiciFetch({ maxSockets: bad })).toThrow(refused('ERR_MGW_INVALID_INTEGER', /undiciFetch: option "maxSockets" must be a positive integer/));
    expect(() => undiciFetch({ connectMs: 0 })).toThrow(refused('ERR_MGW_INVALID_DURATION', /undiciFetch: option "connectMs" must be a positive integer of milliseconds/));
    expect(() => undiciFetch({ dispatcher: new UndiciAgent(), maxSockets: 4 })).toThrow(refused('ERR_MGW_CONFLICTING_OPTIONS', /with your own "dispatcher", set them there/));
  });
});

describe('errors', () => {
  it('has one status per code and derives status from code', () => {
    expect(ERROR_STATUS).toEqual({
      invalid_request_error: 400, authentication_error: 401, billing_error: 402, permission_error: 403, not_found_error: 404,
      method_not_allowed: 405, request_too_large: 413, rate_limit_error: 429, api_error: 500, timeout_error: 504, overloaded_error: 529,
    });
    const err = new GatewayError('overloaded_error', 'busy', { retryAfter: 2, detail: 'private' });
    expect([err.status, err.retryAfter, err.detail]).toEqual([529, 2, 'private']);
  });

  it("keeps an upstream's own words only for a 400 or 413 about the request, at most 2,000 characters", () => {
    const words = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } });
    expect(callerFacingMessage(400, words)).toBe('prompt is too long');
    expect(callerFacingMessage(413, words)).toBe('prompt is too long');
    expect(callerFacingMessage(401, words)).toBeUndefined();
    expect(callerFacingMessage(400, 'not json')).toBeUndefined();
    expect(upstreamError(400, 'detail', undefined, 'x'.repeat(5000)).upstreamMessage).toHaveLength(2000);
    expect(upstreamError(400, 'detail').message).toBe('The upstream rejected the request.');
  });
});

/** Adapter HTTP options checked once at construction: defaults, timeouts, the client and its agents. */
import { ADAPTER_DEFAULTS } from '../../foundation/defaults';
import { GatewayConfigError } from '../../foundation/config-errors';
import { checkDuration } from '../../foundation/duration';
import nodeFetch from 'node-fetch';
import { checkKnownOptions } from '../../foundation/check-options';
import { createAgents } from './agent';
import { redactor } from './redact';
import { knowHost } from './shown';
import type { FetchLike, HttpAdapterOptions, UpstreamTimeouts } from '../types';

/** Defaults of UpstreamTimeouts. */
export const DEFAULT_TIMEOUTS: Readonly<Required<UpstreamTimeouts>> = ADAPTER_DEFAULTS.timeouts;

/** Default largest upstream JSON body read, in bytes. */
export const MAX_UPSTREAM_BODY_BYTES = ADAPTER_DEFAULTS.maxResponseBytes;

/** HttpAdapterOptions resolved once at construction. */
export interface ResolvedHttp {
  readonly name: string;
  /** The base URL without trailing slashes. */
  readonly baseURL: string;
  /** The full URL of an endpoint path ("/v1/messages"): a base ending in that version segment gives it once. */
  readonly url: (path: string) => string;
  readonly fetch: FetchLike;
  /** node-fetch's `agent` option: the keep-alive agents for the default client; undefined for a host's own. */
  readonly agent: ((url: URL) => unknown) | undefined;
  readonly timeouts: Readonly<Required<UpstreamTimeouts>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly maxResponseBytes: number;
  /** Removes the adapter's own key from a text bound for the request log. */
  readonly redact: (text: string) => string;
}

/** The version segment a base URL ends with ("v1" of "https://api.openai.com/v1/"), if any. */
export function baseVersion(baseURL: string): string | undefined {
  return /\/(v\d+)\/*$/.exec(baseURL)?.[1];
}

/**
 * The URL of an endpoint path under `baseURL`, the version segment given once: a base with it
 * ("https://api.openai.com/v1", vLLM's "http://host:8000/v1") and one without reach the same URL.
 */
function joiner(baseURL: string): (path: string) => string {
  const base = baseURL.replace(/\/+$/, '');
  const version = baseVersion(base);
  const prefix = `/${version}/`;
  return (path) => (version && path.startsWith(prefix) ? base + path.slice(prefix.length - 1) : base + path);
}

/** The options every HTTP adapter takes: a record, so the compiler checks it against HttpAdapterOptions both ways. */
const HTTP_OPTIONS = Object.keys({
  baseURL: true, apiKey: true, fetch: true, timeouts: true, headers: true, name: true, maxResponseBytes: true,
} satisfies Record<keyof HttpAdapterOptions, true>);

/**
 * Validates and freezes adapter options; `authHeaders` turns the key into the provider's headers;
 * `own` names the adapter's own options beside the HTTP ones (any other is refused, naming the nearest).
 */
export function resolveHttp(
  options: HttpAdapterOptions,
  defaultName: string,
  authHeaders: (apiKey: string) => Record<string, string>,
  own: readonly string[] = [],
): ResolvedHttp {
  if (options && typeof options === 'object') checkKnownOptions(`${defaultName} adapter`, options, [...HTTP_OPTIONS, ...own]);
  if (typeof options?.baseURL !== 'string' || !/^https?:\/\//.test(options.baseURL)) {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `${defaultName} adapter: option "baseURL" must be an http(s) URL, e.g. "https://api.example.com".`);
  }
  const timeouts = Object.freeze({ ...DEFAULT_TIMEOUTS, ...options.timeouts });
  for (const [key, value] of Object.entries(timeouts)) checkDuration(value, `${defaultName} adapter: option "timeouts.${key}"`);
  const maxResponseBytes = options.maxResponseBytes ?? MAX_UPSTREAM_BODY_BYTES;
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes <= 0) {
    throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', `${defaultName} adapter: option "maxResponseBytes" must be a positive integer.`);
  }
  const agents = createAgents(timeouts.connectMs);
  const agent = (url: URL): unknown => (url.protocol === 'https:' ? agents.https : agents.http);
  const custom = options.fetch;
  // The headers object is shared by every call: a host's own client gets a copy it may change.
  const fetch: FetchLike = custom
    ? (url, init) => custom(url, { ...init, headers: { ...init.headers } })
    : (nodeFetch as unknown as FetchLike);
  const headers = { 'content-type': 'application/json', ...options.headers, ...(options.apiKey ? authHeaders(options.apiKey) : {}) };
  const baseURL = options.baseURL.replace(/\/+$/, '');
  knowHost(baseURL); // a text bound for a caller names no upstream host
  return Object.freeze({
    name: options.name ?? defaultName,
    baseURL,
    url: joiner(baseURL),
    fetch,
    agent: custom ? undefined : agent,
    timeouts,
    headers: Object.freeze(headers),
    maxResponseBytes,
    redact: redactor(options.apiKey),
  });
}

/**
 * undiciFetch(): a FetchLike over undici's `request()` (not its WHATWG fetch, which costs about three times node-fetch's CPU
 * per call here): the cheapest client the bench measured, as an adapter's `fetch` option (docs/benchmarks.md).
 */
import { Agent, request, type Dispatcher } from 'undici';
import { ownEntry } from '../../foundation/own';
import { IDLE_SOCKET_MS } from './agent';
import { DEFAULT_TIMEOUTS } from './options';
import type { FetchLike, ResponseLike } from '../types';
import { GatewayConfigError } from '../../foundation/config-errors';
import { checkDuration } from '../../foundation/duration';

/** Options of undiciFetch(). */
export interface UndiciFetchOptions {
  /** Your own undici dispatcher (an `Agent`, `Pool`, `ProxyAgent`…); by default one keep-alive `Agent` of this client's own. */
  dispatcher?: Dispatcher;
  /** The default agent's cap on connections per upstream origin; calls beyond wait for a free one. Default: no cap. */
  maxSockets?: number;
  /** The default agent's bound on a TCP (and TLS) connect, in ms. Default: the adapters' `timeouts.connectMs` default. */
  connectMs?: number;
}


/** The body of `res` as text, refused past `size` bytes (as node-fetch's `size`). */
async function textOf(body: Dispatcher.ResponseData['body'], size: number | undefined): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (size !== undefined && bytes > size) {
      body.destroy();
      throw Object.assign(new Error('max-size'), { type: 'max-size' });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A fetch-compatible function on undici's `request()`: keep-alive connections closed after 4 s idle (under Node's
 * default server keep-alive, as the built-in agents), no timeouts of its own beyond the connect (the adapter's
 * `timeouts` govern), aborts through the call's signal. Pass it as an adapter's `fetch` option.
 */
export function undiciFetch(options: UndiciFetchOptions = {}): FetchLike {
  const { maxSockets, connectMs = DEFAULT_TIMEOUTS.connectMs } = options;
  if (maxSockets !== undefined && (!Number.isSafeInteger(maxSockets) || maxSockets <= 0)) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', 'undiciFetch: option "maxSockets" must be a positive integer (leave it out for no cap).');
  checkDuration(connectMs, 'undiciFetch: option "connectMs"');
  if (options.dispatcher && (options.maxSockets !== undefined || options.connectMs !== undefined)) {
    throw new GatewayConfigError('ERR_MGW_CONFLICTING_OPTIONS', 'undiciFetch: options "maxSockets" and "connectMs" shape the default agent; with your own "dispatcher", set them there.');
  }
  const dispatcher = options.dispatcher ?? new Agent({
    keepAliveTimeout: IDLE_SOCKET_MS, connect: { timeout: connectMs }, headersTimeout: 0, bodyTimeout: 0, ...(maxSockets ? { connections: maxSockets } : {}),
  });
  return async (url, init) => {
    let res: Dispatcher.ResponseData;
    const { signal } = init;
    let abandon: (() => void) | undefined;
    try {
      const sent = request(url, { method: init.method as Dispatcher.HttpMethod, headers: init.headers, body: init.body, signal, dispatcher });
      // A request queued for a connection (maxSockets) hears of its abort only once it gets one (and is then never sent).
      const aborted = signal && new Promise<never>((_, reject) => signal.addEventListener('abort', (abandon = () => reject(signal.reason)), { once: true }));
      res = await (aborted ? Promise.race([sent, aborted]) : sent);
    } catch (err) {
      // The adapter's error mapping reads a connect timeout by these words, whichever client it came from.
      if ((err as { code?: string }).code === 'UND_ERR_CONNECT_TIMEOUT') throw new Error(`connect timeout after ${connectMs} ms`);
      throw err;
    } finally {
      if (abandon) signal?.removeEventListener('abort', abandon);
    }
    const { statusCode, headers, body } = res;
    const get = (name: string): string | null => {
      const value = ownEntry(headers, name.toLowerCase());
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    };
    const response: ResponseLike = { status: statusCode, headers: { get }, body, text: () => textOf(body, init.size) };
    return response;
  };
}

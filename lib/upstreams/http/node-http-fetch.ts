/** nodeHttpFetch(): a FetchLike over Node's own http.request, for hosts that want the cheapest client. */
import { GatewayConfigError } from '../../foundation/config-errors';
import { checkDuration } from '../../foundation/duration';
import http from 'node:http';
import https from 'node:https';
import { ownEntry } from '../../foundation/own';
import { createAgents } from './agent';
import { DEFAULT_TIMEOUTS } from './options';
import type { FetchLike, ResponseLike } from '../types';

/** Options of nodeHttpFetch(). */
export interface NodeHttpFetchOptions {
  /** Your own agents; by default the adapters' own (keep-alive, idle connections closed before the upstream closes them). */
  http?: http.Agent;
  https?: https.Agent;
  /** The default agents' cap on connections per upstream host; calls beyond wait for a free one. Default: no cap. */
  maxSockets?: number;
  /** The default agents' bound on a TCP (and TLS) connect, in ms. Default: the adapters' `timeouts.connectMs` default. */
  connectMs?: number;
}

/**
 * A fetch-compatible function on Node's own `http.request` with keep-alive agents (no WHATWG
 * objects per call). Pass it as an adapter's `fetch` option; unlike node-fetch 2 it notices a
 * reset inside a JSON body at once, and its connections can be capped (a queued call waits within
 * the adapter's `timeouts.firstByteMs`).
 */
export function nodeHttpFetch(options: NodeHttpFetchOptions = {}): FetchLike {
  const { maxSockets, connectMs = DEFAULT_TIMEOUTS.connectMs } = options;
  if (maxSockets !== undefined && (!Number.isSafeInteger(maxSockets) || maxSockets <= 0)) {
    throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', 'nodeHttpFetch: option "maxSockets" must be a positive integer (leave it out for no cap).');
  }
  checkDuration(connectMs, 'nodeHttpFetch: option "connectMs"');
  if ((options.http || options.https) && (options.maxSockets !== undefined || options.connectMs !== undefined)) {
    throw new GatewayConfigError('ERR_MGW_CONFLICTING_OPTIONS', 'nodeHttpFetch: options "maxSockets" and "connectMs" shape the default agents; with your own "http"/"https" agents, set them there.');
  }
  const defaults = createAgents(connectMs, maxSockets);
  const plain = options.http ?? defaults.http;
  const secure = options.https ?? defaults.https;
  return (url, init) => new Promise<ResponseLike>((resolve, reject) => {
    const request = url.startsWith('https:') ? https.request : http.request;
    const agent = url.startsWith('https:') ? secure : plain;
    const req = request(url, { method: init.method, headers: init.headers, agent, signal: init.signal }, (res) => {
      const get = (name: string): string | null => {
        const value = ownEntry(res.headers, name.toLowerCase());
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      };
      const text = (): Promise<string> => new Promise((ok, fail) => {
        let body = '';
        let bytes = 0;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          bytes += Buffer.byteLength(chunk);
          if (init.size !== undefined && bytes > init.size) res.destroy(Object.assign(new Error('max-size'), { type: 'max-size' }));
          else body += chunk;
        });
        res.on('end', () => ok(body));
        res.on('error', fail);
        res.on('aborted', () => fail(new Error('upstream closed the body early')));
      });
      resolve({ status: res.statusCode ?? 0, headers: { get }, body: res, text });
    });
    req.on('error', reject);
    // A request queued for a connection (maxSockets) hears of its abort only once it gets one.
    const { signal } = init;
    if (signal) {
      const abandon = (): void => reject(signal.reason);
      signal.addEventListener('abort', abandon, { once: true });
      req.once('close', () => signal.removeEventListener('abort', abandon));
    }
    req.end(init.body);
  });
}

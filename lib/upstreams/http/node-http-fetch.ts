/** nodeHttpFetch(): a FetchLike over Node's own http.request, for hosts that want the cheapest client. */
import http from 'node:http';
import https from 'node:https';
import { AGENT_OPTIONS } from './agent';
import type { FetchLike, ResponseLike } from '../types';

/**
 * A fetch-compatible function on Node's own `http.request` with keep-alive agents (no WHATWG
 * objects per call). Pass it as an adapter's `fetch` option; unlike node-fetch 2 it notices a
 * reset inside a JSON body at once. Default agents: the adapters' own (keep-alive, idle
 * connections closed before the upstream closes them), with at most `maxSockets` connections per
 * upstream host (default: no cap); calls beyond wait for a free one, within `timeouts.firstByteMs`.
 */
export function nodeHttpFetch(options: { http?: http.Agent; https?: https.Agent; maxSockets?: number } = {}): FetchLike {
  const { maxSockets } = options;
  if (maxSockets !== undefined && (!Number.isSafeInteger(maxSockets) || maxSockets <= 0)) {
    throw new TypeError('nodeHttpFetch: option "maxSockets" must be a positive integer (leave it out for no cap).');
  }
  const agentOptions = maxSockets === undefined ? AGENT_OPTIONS : { ...AGENT_OPTIONS, maxSockets };
  const plain = options.http ?? new http.Agent(agentOptions);
  const secure = options.https ?? new https.Agent(agentOptions);
  return (url, init) => new Promise<ResponseLike>((resolve, reject) => {
    const request = url.startsWith('https:') ? https.request : http.request;
    const agent = url.startsWith('https:') ? secure : plain;
    const req = request(url, { method: init.method, headers: init.headers, agent, signal: init.signal }, (res) => {
      const get = (name: string): string | null => {
        const value = res.headers[name.toLowerCase()];
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
    req.end(init.body);
  });
}

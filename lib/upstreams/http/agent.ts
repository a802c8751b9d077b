/** Keep-alive HTTP(S) agents whose sockets give up when the TCP connect takes too long. */
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

type CreateConnection = (options: object, callback?: (err: Error | null, socket: Duplex) => void) => Duplex;

function withConnectTimeout<T extends http.Agent>(agent: T, connectMs: number): T {
  const proto = Object.getPrototypeOf(agent) as { createConnection: CreateConnection };
  const base = proto.createConnection;
  const timed: CreateConnection = function timedConnection(this: T, options, callback) {
    const socket = base.call(this, options, callback);
    const timer = setTimeout(() => socket.destroy(new Error(`connect timeout after ${connectMs} ms`)), connectMs);
    const clear = (): void => clearTimeout(timer);
    socket.once('connect', clear);
    socket.once('secureConnect', clear);
    socket.once('close', clear);
    return socket;
  };
  Object.defineProperty(agent, 'createConnection', { value: timed });
  return agent;
}

/**
 * Longest a pooled upstream connection stays idle, in ms. Under Node's default server keep-alive
 * (5 s), as undici and agentkeepalive choose, so the gateway closes first: a request sent on a
 * connection the upstream is closing fails with a reset. Setting it also makes Node honour an
 * upstream's shorter `Keep-Alive: timeout=N` (it closes one second before).
 */
export const IDLE_SOCKET_MS = 4000;

/**
 * Options of every keep-alive agent the package creates. No cap on connections by default: a
 * request node-fetch 2 queues for a freed connection fails with "Premature close".
 */
const AGENT_OPTIONS: Readonly<http.AgentOptions> = Object.freeze({ keepAlive: true, scheduling: 'lifo', timeout: IDLE_SOCKET_MS });

/** One pair of agents per adapter: keep-alive, so calls reuse warm connections. */
export interface AgentPair {
  http: http.Agent;
  https: https.Agent;
}

/** Creates the agents; `connectMs` bounds the TCP (and TLS) connect, `maxSockets` the connections per host. */
export function createAgents(connectMs: number, maxSockets?: number): AgentPair {
  const options = maxSockets === undefined ? AGENT_OPTIONS : { ...AGENT_OPTIONS, maxSockets };
  return {
    http: withConnectTimeout(new http.Agent(options), connectMs),
    https: withConnectTimeout(new https.Agent(options), connectMs),
  };
}

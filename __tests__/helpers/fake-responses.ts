/** A scripted fake OpenAI Responses server (`POST /v1/responses`, SSE or JSON): what Codex talks to in the harness tests, and a
 * native Responses upstream for the gateway's (a turn's `fault` cuts its stream: `response.failed` or a dropped connection).
 * Each request gets the next scripted turn; every request is recorded raw. As
 * OpenAI does, it stores a response unless the request says `store: false` (echoed in `store`), and refuses a
 * `previous_response_id` it did not store with 400 `previous_response_not_found`. */
import type http from 'node:http';
import type { ResponseOutputItem, ResponseUsage } from 'openai/resources/responses/responses';
import { sendJson, startAgentServer, type AgentRequest, type AgentServer } from './fake-agent-server';
import { responseEvents, responseObject, type WireEvent, type WireResponse } from './fake-responses-events';
import { sse } from './fake-server';

export * from './fake-responses-events';

/** A stream cut after its first `after` events: by `response.failed` (its error in the upstream's words, the turn's usage), or by dropping the connection. */
export interface StreamFault {
  after: number;
  then: 'response.failed' | 'drop';
}

/** The upstream's own words in a failure it sends: a test checks they never reach the client. */
export const UPSTREAM_WORDS = 'upstream secret words';

/** One scripted answer: a response (streamed when the request asks, `fault` cutting the stream), an HTTP error, or a stream that starts and never ends. */
export type ResponsesTurn =
  | { output: ResponseOutputItem[]; usage: ResponseUsage | null; status?: 'completed' | 'incomplete'; fault?: StreamFault }
  | { httpStatus: number; error: { message: string; type: string; code: string | null; param: string | null }; headers?: Record<string, string> }
  | { hang: true };

/** Picks the turn for a `POST /v1/responses`. */
export type ResponsesScript = (request: AgentRequest) => ResponsesTurn;

/** The turns in order, one per request from now on; a request beyond them gets a 500 that names the overrun. */
export function inOrder(...turns: ResponsesTurn[]): ResponsesScript {
  let n = 0;
  return () => {
    n += 1;
    return turns[n - 1] ?? { httpStatus: 500, error: { message: `fake: request ${n} is beyond the ${turns.length} scripted turns`, type: 'server_error', code: null, param: null } };
  };
}

/** One answered request and exactly what went back (`events` for a stream, `response` for JSON or the stream's final state). */
export interface ResponsesAnswer {
  request: AgentRequest;
  turn: ResponsesTurn;
  response: WireResponse | undefined;
  events: WireEvent[] | undefined;
}

export interface ResponsesFake extends AgentServer {
  /** The script in use; tests may replace it between runs. */
  script: ResponsesScript;
  /** The recorded `POST /v1/responses` requests, in order. */
  responses(): AgentRequest[];
  answers: ResponsesAnswer[];
  /** The ids it stored (a test may delete some, as an upstream whose retention ran out). */
  stored: Set<string>;
}

/** Options of the fake: the prefix of the response ids it issues (two fakes with different prefixes issue different ids). */
export interface ResponsesFakeOptions {
  idPrefix?: string;
}

function fail(res: http.ServerResponse, status: number, message: string, param: string | null = null, code: string | null = null): void {
  sendJson(res, status, { error: { message, type: 'invalid_request_error', param, code } });
}

/** Starts the fake on 127.0.0.1:0. Anything but `POST /v1/responses` gets a 404 in OpenAI's error shape (and is recorded). */
export async function startResponsesFake(script: ResponsesScript, options: ResponsesFakeOptions = {}): Promise<ResponsesFake> {
  const self = { script, answers: [] as ResponsesAnswer[], stored: new Set<string>() };
  let n = 0;
  const server = await startAgentServer((req, res) => {
    if (`${req.method} ${req.path.split('?')[0] ?? ''}` !== 'POST /v1/responses') return fail(res, 404, `Invalid URL (${req.method} ${req.path})`, null, 'unknown_url');
    const body = req.body;
    if (!body) return fail(res, 400, 'We could not parse the JSON body of your request.');
    if (typeof body.model !== 'string') return fail(res, 400, "Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
    const previous = body.previous_response_id;
    if (typeof previous === 'string' && !self.stored.has(previous)) {
      return fail(res, 400, `Previous response with id '${previous}' not found.`, 'previous_response_id', 'previous_response_not_found');
    }
    const turn = self.script(req);
    const id = `${options.idPrefix ?? 'resp_fake_'}${n}`;
    n += 1;
    if ('httpStatus' in turn) {
      self.answers.push({ request: req, turn, response: undefined, events: undefined });
      res.writeHead(turn.httpStatus, { 'content-type': 'application/json', ...turn.headers });
      return void res.end(JSON.stringify({ error: turn.error }));
    }
    if ('hang' in turn) {
      self.answers.push({ request: req, turn, response: undefined, events: undefined });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      return void res.flushHeaders();
    }
    const store = body.store !== false;
    const response = { ...responseObject(id, body.model, turn.status ?? 'completed', turn.output, turn.usage), store };
    if (store && !(turn.fault && body.stream === true)) self.stored.add(id);
    if (body.stream !== true) {
      self.answers.push({ request: req, turn, response, events: undefined });
      return sendJson(res, 200, response);
    }
    const fault = turn.fault;
    const all = responseEvents(response);
    const events = fault ? all.slice(0, fault.after) : all;
    if (fault?.then === 'response.failed') {
      const failed = { ...response, status: 'failed' as const, output: [], error: { code: 'server_error' as const, message: `${UPSTREAM_WORDS} (trace 7f3a)` } };
      events.push({ type: 'response.failed', response: failed, sequence_number: fault.after });
    }
    self.answers.push({ request: req, turn, response, events });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': `req_fake_${n}` });
    for (const e of events) sse(res, e, e.type);
    if (fault?.then === 'drop') return void setTimeout(() => res.socket?.destroy(), 20); // after the events are flushed
    res.end();
  });
  const responses = (): AgentRequest[] => server.requests.filter((r) => r.method === 'POST' && r.path.split('?')[0] === '/v1/responses');
  return Object.assign(self, server, { responses });
}

/** The one seam for upstream HTTP calls: a POST and its body under the timeouts, failures mapped to GatewayErrors. */
import { GatewayError } from '../../foundation/errors';
import { callAborted, offCallAbort, onCallAbort } from '../call-context';
import { badUpstreamAnswer } from '../../foundation/answer-errors';
import { callerFacingMessage, callerFacingTerms, connectionError, parseRetryAfter, timeoutError, upstreamError } from './errors';
import type { ResolvedHttp } from './options';
import type { ResponseLike, UpstreamCallContext } from '../types';

/** Longest time the bytes after a stream's final event are drained (so its connection can be reused), in ms. */
export const DRAIN_MS = 1000;

/** An open upstream response: its body is read either whole (`text`) or chunk by chunk, under the idle timeout. */
export interface OpenResponse {
  readonly response: ResponseLike;
  /** The whole body, bounded by `maxResponseBytes`; the idle timeout bounds the whole read. */
  text(): Promise<string>;
  /** The body chunk by chunk; the idle timeout bounds each wait. */
  chunks(): AsyncGenerator<Uint8Array | string>;
  /**
   * Call before leaving `chunks()` early once the answer is whole: the rest of the body is read
   * and dropped in the background for at most DRAIN_MS, so its connection can be reused, then cut.
   */
  drain(): void;
}

/** The error thrown when the client went away; it never reaches a client. */
export function clientGone(): GatewayError {
  return new GatewayError('api_error', 'Client closed the request.', { detail: 'client disconnected' });
}

/** A timer fired: the call gives up in `phase` (unless an idle timer fired while nobody waited). */
function expire(call: UpstreamCall, phase: 'first byte' | 'idle'): void {
  if (phase === 'idle' && !call.waiting) {
    call.timer?.refresh(); // the consumer is busy (client backpressure): not the upstream's silence
    return;
  }
  call.phase = phase;
  call.controller.abort();
}

/**
 * One upstream call from request to the end of its body: its own abort controller (the request's
 * abort, a timeout or an early stop each abort it), and one timer re-armed with refresh().
 */
class UpstreamCall implements OpenResponse {
  readonly controller = new AbortController();
  phase: string | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Whether the call waits on the upstream (an idle timeout counts only then). */
  waiting = true;
  response!: ResponseLike;
  private body: AsyncIterator<Uint8Array | string> | undefined;
  private draining = false;

  /** The request's call was aborted (client gone, shutdown): this upstream call stops. */
  private readonly stop = (): void => this.controller.abort();

  constructor(private readonly http: ResolvedHttp, private readonly ctx: UpstreamCallContext) {
    if (callAborted(ctx)) this.controller.abort();
    else onCallAbort(ctx, this.stop);
  }

  /** The GatewayError for a failure of the call. */
  fail(err: unknown): GatewayError {
    if (err instanceof GatewayError) return err;
    if (this.phase) return timeoutError(this.phase);
    if (callAborted(this.ctx)) return clientGone();
    const message = err instanceof Error ? err.message : String(err);
    if (message.includes('connect timeout')) return timeoutError('connect');
    return connectionError(`upstream ${this.http.name}: ${message}`);
  }

  /** Starts (or restarts) the timer of `phase`. */
  arm(phase: 'first byte' | 'idle', ms: number): void {
    this.waiting = true;
    if (this.timer) this.timer.refresh();
    else this.timer = setTimeout(expire, ms, this, phase);
  }

  /** The call is over: no timer, no abort listener. */
  done(): void {
    clearTimeout(this.timer);
    offCallAbort(this.ctx, this.stop);
  }

  async *chunks(): AsyncGenerator<Uint8Array | string> {
    let complete = false;
    const source: AsyncIterable<Uint8Array | string> = this.response.body ?? (async function* none() {})();
    const body = (this.body = source[Symbol.asyncIterator]());
    try {
      // The idle timer counts only while waiting on the upstream, not while the client applies backpressure.
      this.arm('idle', this.http.timeouts.idleMs);
      for (let read = await body.next(); !read.done; read = await body.next()) {
        this.waiting = false;
        yield read.value;
        this.arm('idle', this.http.timeouts.idleMs);
      }
      complete = true;
    } catch (err) {
      throw this.fail(err);
    } finally {
      this.done();
      // A body left unread (the consumer stopped early) must not keep its connection busy.
      if (!complete && !this.draining && !this.controller.signal.aborted) this.controller.abort();
    }
  }

  drain(): void {
    const body = this.body;
    if (!body || this.draining) return;
    this.draining = true;
    const cut = setTimeout(() => this.controller.abort(), DRAIN_MS);
    const rest = async (): Promise<void> => {
      for (let read = await body.next(); !read.done; read = await body.next());
    };
    rest().catch(() => undefined).finally(() => clearTimeout(cut));
  }

  async text(): Promise<string> {
    const { response, http } = this;
    this.arm('idle', http.timeouts.idleMs);
    try {
      if (Number(response.headers.get('content-length')) > http.maxResponseBytes) throw this.tooBig();
      const whole = await response.text();
      if (whole.length > http.maxResponseBytes) throw this.tooBig();
      return whole;
    } catch (err) {
      if (!(err instanceof GatewayError) && (err as { type?: string }).type === 'max-size') throw this.tooBig();
      throw this.fail(err);
    } finally {
      this.done();
      if (!this.controller.signal.aborted && response.body && !(response as { bodyUsed?: boolean }).bodyUsed) this.controller.abort();
    }
  }

  private tooBig(): GatewayError {
    return badUpstreamAnswer(`upstream body over ${this.http.maxResponseBytes} bytes`);
  }
}

/**
 * POSTs JSON upstream (with `headers`, default the adapter's); resolves once the headers are in,
 * with a 2xx status, or throws GatewayError. `asSent`: the body is the caller's own, so a refusal
 * keeps the upstream's OpenAI terms (`param`, `code`: they name the caller's fields).
 */
export async function postJson(http: ResolvedHttp, path: string, body: unknown, ctx: UpstreamCallContext, headers: Readonly<Record<string, string>> = http.headers, asSent = false): Promise<OpenResponse> {
  const call = new UpstreamCall(http, ctx);
  call.timer = setTimeout(expire, http.timeouts.firstByteMs, call, 'first byte');
  try {
    call.response = await http.fetch(http.url(path), {
      method: 'POST', headers, body: JSON.stringify(body), signal: call.controller.signal, size: http.maxResponseBytes, agent: http.agent,
    });
  } catch (err) {
    call.done();
    throw call.fail(err);
  }
  clearTimeout(call.timer);
  call.timer = undefined;
  const { response } = call;
  if (response.status < 200 || response.status > 299) {
    const text = await call.text().catch((err: unknown) => `(body unreadable: ${String(err)})`);
    throw upstreamError(response.status, `upstream ${http.name} ${response.status}: ${text.slice(0, 4000)}`,
      parseRetryAfter(response.headers.get('retry-after')), callerFacingMessage(response.status, text), asSent ? callerFacingTerms(response.status, text) : undefined);
  }
  return call;
}

/** Reads the whole body as text, bounded by the adapter's `maxResponseBytes`. */
export function readText(open: OpenResponse): Promise<string> {
  return open.text();
}

/** Reads and parses a JSON body; anything unreadable is an `api_error` with the text in `detail`. */
export async function readJson(open: OpenResponse, name: string): Promise<unknown> {
  return parseJson(await readText(open), name);
}

/** Parses an upstream's JSON text; anything unparsable is an `api_error` with the text in `detail`. */
export function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badUpstreamAnswer(`upstream ${name} sent invalid JSON: ${text.slice(0, 2000)}`);
  }
}

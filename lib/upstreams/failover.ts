/** failover(): one adapter over several upstreams, with retries before the first byte and a cool-down for failing ones. */
import { GatewayConfigError } from '../config-errors';
import type { UpstreamFormat } from '../billing/figures';
import { GatewayError, toGatewayError } from '../errors';
import type { RerankRequest, RerankResult } from '../types';
import type { StreamItem } from '../messages/events';
import type { MessageResponse, MessagesRequest } from '../messages/request';
import { callAborted, offCallAbort, onCallAbort } from './call-context';
import { isRetryableCode } from './http/errors';
import { nativeResponsesOf, offerNativeResponses, type NativeResponses } from './native-responses';
import type { CountTokensRequest, MessagesAdapter, RerankAdapter, UpstreamCallContext } from './types';

/** Options of failover(). */
export interface FailoverOptions {
  /** Attempts in all, across upstreams. Default: 3. */
  attempts?: number;
  /** Backoff before a retry, doubled each time, in ms. Default: 100. */
  backoffMs?: number;
  /** Longest `retry-after` waited for; a longer one moves on to the next upstream. Default: 2000. */
  maxRetryAfterMs?: number;
  /** Consecutive failures that take an upstream out of rotation. Default: 3. */
  failureThreshold?: number;
  /** How long an upstream stays out of rotation before it is tried again, in ms. Default: 30000. */
  cooldownMs?: number;
}

type Adapter = MessagesAdapter | RerankAdapter;
interface Health { failures: number; downUntil: number }

/** The members of each failover() Messages adapter (a WeakMap: the adapter's own shape is the contract's). */
const membersOf = new WeakMap<MessagesAdapter, readonly MessagesAdapter[]>();

/**
 * The wire formats an adapter may call: a failover() adapter's members' (nested groups
 * included), any other adapter's own `format`. An automatic-caching decision reads it.
 */
export function formatsOf(adapter: MessagesAdapter): ReadonlyArray<UpstreamFormat | undefined> {
  const members = membersOf.get(adapter);
  return members ? members.flatMap(formatsOf) : [adapter.format];
}

/** The format part of an attempt record: the member's own, when it has one. */
const formatPart = (adapter: Adapter): { format?: UpstreamFormat } => (adapter.kind === 'messages' && adapter.format ? { format: adapter.format } : {});

const pause = (ms: number, ctx: UpstreamCallContext): Promise<void> => new Promise((resolve) => {
  if (ms <= 0 || callAborted(ctx)) return resolve();
  const timer = setTimeout(done, ms);
  onCallAbort(ctx, done);
  function done(): void { clearTimeout(timer); offCallAbort(ctx, done); resolve(); }
});

function plan<T extends Adapter>(list: readonly T[], options: FailoverOptions) {
  const attempts = options.attempts ?? 3;
  const backoff = options.backoffMs ?? 100;
  const maxWait = options.maxRetryAfterMs ?? 2000;
  const threshold = options.failureThreshold ?? 3;
  const cooldown = options.cooldownMs ?? 30_000;
  if (list.length === 0) throw new GatewayConfigError('ERR_MGW_MISSING_OPTION', 'failover: pass at least one adapter.');
  if (new Set(list.map((a) => a.kind)).size !== 1) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'failover: all adapters must be of one kind (messages or rerank).');
  if (!Number.isSafeInteger(attempts) || attempts < 1) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', 'failover: option "attempts" must be a positive integer.');
  const health = new Map<T, Health>(list.map((a) => [a, { failures: 0, downUntil: 0 }]));
  /** Healthy upstreams in their order; if none, the one back soonest (a trial). */
  const pick = (tried: number): T => {
    const now = Date.now();
    const up = list.filter((a) => (health.get(a) as Health).downUntil <= now);
    const pool = up.length > 0 ? up : [...list].sort((a, b) => (health.get(a) as Health).downUntil - (health.get(b) as Health).downUntil).slice(0, 1);
    return pool[tried % pool.length] as T;
  };
  async function run<R>(ctx: UpstreamCallContext, call: (adapter: T) => Promise<R>): Promise<R> {
    let last: GatewayError | undefined;
    for (let n = 0; n < attempts; n++) {
      const adapter = pick(n);
      const h = health.get(adapter) as Health;
      const started = performance.now();
      try {
        const result = await call(adapter);
        h.failures = 0;
        ctx.recordAttempt?.({ upstream: adapter.name, ok: true, ms: performance.now() - started, ...formatPart(adapter) });
        return result;
      } catch (err) {
        const error = toGatewayError(err);
        ctx.recordAttempt?.({ upstream: adapter.name, ok: false, code: error.code, detail: error.detail ?? error.message, ms: performance.now() - started, ...formatPart(adapter) });
        if (callAborted(ctx) || !isRetryableCode(error.code)) throw error;
        last = error;
        h.failures++;
        const waitMs = (error.retryAfter ?? 0) * 1000;
        if (h.failures >= threshold) h.downUntil = Date.now() + cooldown;
        if (waitMs > maxWait) h.downUntil = Math.max(h.downUntil, Date.now() + waitMs);
        if (n + 1 < attempts) await pause(waitMs > maxWait ? 0 : Math.max(waitMs, backoff * 2 ** n), ctx);
      }
    }
    throw last as GatewayError;
  }
  return run;
}

/**
 * Combines adapters of one kind. A call goes to the first healthy upstream; on a connection
 * failure, 429, 5xx or timeout it is retried (bounded attempts, exponential backoff,
 * `retry-after` honoured up to `maxRetryAfterMs`) on the next one. A stream is retried only
 * before its first event: once bytes went to the client, never. An upstream that fails
 * `failureThreshold` times in a row is out of rotation for `cooldownMs`, then tried again.
 * Every attempt is reported through `ctx.recordAttempt` (the request log's `attempts`), with the
 * member's `format`: the attempt that served prices the request's cache figures by it. Members
 * that all pass the Responses route through (openaiResponsesAdapter) make a group that does too.
 */
export function failover(adapters: readonly MessagesAdapter[], options?: FailoverOptions): MessagesAdapter;
export function failover(adapters: readonly RerankAdapter[], options?: FailoverOptions): RerankAdapter;
export function failover(adapters: readonly Adapter[], options: FailoverOptions = {}): Adapter {
  const name = `failover(${adapters.map((a) => a.name).join(',')})`;
  if (adapters[0]?.kind === 'rerank') {
    const run = plan(adapters as readonly RerankAdapter[], options);
    const rerank = (request: RerankRequest, ctx: UpstreamCallContext): Promise<RerankResult[]> => run(ctx, (a) => a.rerank(request, ctx));
    return Object.freeze({ kind: 'rerank' as const, name, rerank });
  }
  const run = plan(adapters as readonly MessagesAdapter[], options);
  const create = (request: MessagesRequest, ctx: UpstreamCallContext): Promise<MessageResponse> => run(ctx, (a) => a.create(request, ctx));
  /** A stream from the first upstream that yields its first item; never retried after it. */
  async function* firstThenRest<I>(ctx: UpstreamCallContext, open: (a: MessagesAdapter) => AsyncIterable<I>): AsyncGenerator<I> {
    const opened = await run(ctx, async (a) => {
      const events = open(a)[Symbol.asyncIterator]();
      return { events, first: await events.next() };
    });
    let next = opened.first;
    try {
      while (!next.done) {
        yield next.value;
        next = await opened.events.next();
      }
    } finally {
      if (!next.done) await opened.events.return?.(undefined);
    }
  }
  const stream = (request: MessagesRequest, ctx: UpstreamCallContext): AsyncIterable<StreamItem> => firstThenRest(ctx, (a) => a.stream(request, ctx));
  // Counting is offered only when every upstream can count, so no rotation lands on one that cannot.
  const counters = (adapters as readonly MessagesAdapter[]).every((a) => typeof a.countTokens === 'function');
  const countTokens = (request: CountTokensRequest, ctx: UpstreamCallContext): Promise<number> =>
    run(ctx, (a) => (a.countTokens as NonNullable<MessagesAdapter['countTokens']>).call(a, request, ctx));
  // The members' common format is the group's; members of two formats have none (each attempt then
  // carries its member's format, which prices the request).
  const members = adapters as readonly MessagesAdapter[];
  const formats = new Set(members.map((a) => a.format));
  const format = formats.size === 1 ? [...formats][0] : undefined;
  const group: MessagesAdapter = Object.freeze({ kind: 'messages' as const, name, ...(format ? { format } : {}), create, stream, ...(counters ? { countTokens } : {}) });
  // The Responses route passes through only when every member can (each checks that a chain's upstream id is its own).
  const natives = members.map(nativeResponsesOf);
  const nativeOf = (a: MessagesAdapter): NativeResponses => natives[members.indexOf(a)] as NativeResponses;
  const adapter = !natives.every((n): n is NativeResponses => n !== undefined) ? group : offerNativeResponses(group, {
    create: (call, ctx) => run(ctx, (a) => nativeOf(a).create(call, ctx)),
    stream: (call, ctx) => firstThenRest(ctx, (a) => nativeOf(a).stream(call, ctx)),
  });
  membersOf.set(adapter, Object.freeze([...members]));
  return adapter;
}

/** failover(): one adapter over several upstreams (each member with its own upstream model and prices, if it says so), with retries before the first byte and a cool-down for failing ones. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { UpstreamFormat } from '../billing/figures';
import { GatewayError, toGatewayError } from '../foundation/errors';
import type { RerankRequest, RerankResult } from '../types';
import type { StreamItem } from '../messages/events';
import type { MessageResponse, MessagesRequest } from '../messages/request';
import { callAborted, offCallAbort, onCallAbort } from './call-context';
import { isRetryableCode } from './http/errors';
import { attemptFacts, leavesOf, membersFrom, registerMembers, sentTo, type Member, type UpstreamMember } from './members';
import { nativeResponsesOf, offerNativeResponses, type NativeCall, type NativeResponses } from './native-responses';
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

/**
 * The wire formats an adapter may call: a failover() adapter's members' (nested groups
 * included), any other adapter's own `format`. An automatic-caching decision reads it.
 */
export function formatsOf(adapter: MessagesAdapter): ReadonlyArray<UpstreamFormat | undefined> {
  return leavesOf(adapter).map((leaf) => leaf.format);
}

const pause = (ms: number, ctx: UpstreamCallContext): Promise<void> => new Promise((resolve) => {
  if (ms <= 0 || callAborted(ctx)) return resolve();
  const timer = setTimeout(done, ms);
  onCallAbort(ctx, done);
  function done(): void { clearTimeout(timer); offCallAbort(ctx, done); resolve(); }
});

function plan<T extends Adapter>(list: readonly Member<T>[], options: FailoverOptions) {
  const attempts = options.attempts ?? 3;
  const backoff = options.backoffMs ?? 100;
  const maxWait = options.maxRetryAfterMs ?? 2000;
  const threshold = options.failureThreshold ?? 3;
  const cooldown = options.cooldownMs ?? 30_000;
  if (!Number.isSafeInteger(attempts) || attempts < 1) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', 'failover: option "attempts" must be a positive integer.');
  // One health record per member (the same adapter may be two members, each with its own model).
  const health: Health[] = list.map(() => ({ failures: 0, downUntil: 0 }));
  /** Healthy members in their order; if none, the one back soonest (a trial). */
  const pick = (tried: number): number => {
    const now = Date.now();
    const up = list.map((_, i) => i).filter((i) => (health[i] as Health).downUntil <= now);
    const pool = up.length > 0 ? up : list.map((_, i) => i).sort((a, b) => (health[a] as Health).downUntil - (health[b] as Health).downUntil).slice(0, 1);
    return pool[tried % pool.length] as number;
  };
  /** Runs `call` on one member after another (`sent`: the model name the request carries, recorded for members without their own). */
  async function run<R>(ctx: UpstreamCallContext, sent: string | undefined, call: (member: Member<T>) => Promise<R>): Promise<R> {
    let last: GatewayError | undefined;
    for (let n = 0; n < attempts; n++) {
      const at = pick(n);
      const member = list[at] as Member<T>;
      const h = health[at] as Health;
      const started = performance.now();
      try {
        const result = await call(member);
        h.failures = 0;
        ctx.recordAttempt?.({ upstream: member.upstream.name, ok: true, ms: performance.now() - started, ...attemptFacts(member, sent) });
        return result;
      } catch (err) {
        const error = toGatewayError(err);
        ctx.recordAttempt?.({ upstream: member.upstream.name, ok: false, code: error.code, detail: error.detail ?? error.message, ms: performance.now() - started, ...attemptFacts(member, sent) });
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
 *
 * A member is an adapter, or `{ upstream, upstreamModel?, pricing? }`: the model name that member
 * is sent (every route: Messages, chat, Responses translated or passed through, count_tokens,
 * rerank) and the prices of the requests it serves; what it leaves out is the model's. Every
 * attempt is reported through `ctx.recordAttempt` (the request log's `attempts`), with the
 * member's `format`, the model it was sent and its own prices: the attempt that served prices
 * the request. Members that all pass the Responses route through (openaiResponsesAdapter) make a
 * group that does too.
 */
export function failover(members: readonly (MessagesAdapter | UpstreamMember<MessagesAdapter>)[], options?: FailoverOptions): MessagesAdapter;
export function failover(members: readonly (RerankAdapter | UpstreamMember<RerankAdapter>)[], options?: FailoverOptions): RerankAdapter;
export function failover(given: readonly (Adapter | UpstreamMember<Adapter>)[], options: FailoverOptions = {}): Adapter {
  const list = membersFrom(given, 'failover');
  const name = `failover(${list.map((m) => m.upstream.name).join(',')})`;
  if (list[0]?.upstream.kind === 'rerank') {
    const run = plan(list as readonly Member<RerankAdapter>[], options);
    const rerank = (request: RerankRequest, ctx: UpstreamCallContext): Promise<RerankResult[]> => run(ctx, request.model, (m) => m.upstream.rerank(sentTo(request, m), ctx));
    return registerMembers(Object.freeze({ kind: 'rerank' as const, name, rerank }), list);
  }
  const members = list as readonly Member<MessagesAdapter>[];
  const run = plan(members, options);
  const create = (request: MessagesRequest, ctx: UpstreamCallContext): Promise<MessageResponse> => run(ctx, request.model, (m) => m.upstream.create(sentTo(request, m), ctx));
  /** A stream from the first upstream that yields its first item; never retried after it. */
  async function* firstThenRest<I>(ctx: UpstreamCallContext, sent: string | undefined, open: (m: Member<MessagesAdapter>) => AsyncIterable<I>): AsyncGenerator<I> {
    const opened = await run(ctx, sent, async (m) => {
      const events = open(m)[Symbol.asyncIterator]();
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
  const stream = (request: MessagesRequest, ctx: UpstreamCallContext): AsyncIterable<StreamItem> => firstThenRest(ctx, request.model, (m) => m.upstream.stream(sentTo(request, m), ctx));
  // Counting is offered only when every upstream can count, so no rotation lands on one that cannot.
  const counters = members.every((m) => typeof m.upstream.countTokens === 'function');
  const countTokens = (request: CountTokensRequest, ctx: UpstreamCallContext): Promise<number> =>
    run(ctx, request.model, (m) => (m.upstream.countTokens as NonNullable<MessagesAdapter['countTokens']>).call(m.upstream, sentTo(request, m), ctx));
  // The members' common format is the group's; members of two formats have none (each attempt then
  // carries its member's format, which prices the request).
  const formats = new Set(members.map((m) => m.upstream.format));
  const format = formats.size === 1 ? [...formats][0] : undefined;
  const group: MessagesAdapter = Object.freeze({ kind: 'messages' as const, name, ...(format ? { format } : {}), create, stream, ...(counters ? { countTokens } : {}) });
  // The Responses route passes through only when every member can (each checks that a chain's upstream id is its own).
  const natives = members.map((m) => nativeResponsesOf(m.upstream));
  const nativeOf = (m: Member<MessagesAdapter>): NativeResponses => natives[members.indexOf(m)] as NativeResponses;
  const toMember = (call: NativeCall, m: Member<MessagesAdapter>): NativeCall => (m.upstreamModel === undefined ? call : { ...call, body: { ...call.body, model: m.upstreamModel } });
  const sentOf = (call: NativeCall): string | undefined => (typeof call.body.model === 'string' ? call.body.model : undefined);
  const adapter = !natives.every((n): n is NativeResponses => n !== undefined) ? group : offerNativeResponses(group, {
    create: (call, ctx) => run(ctx, sentOf(call), (m) => nativeOf(m).create(toMember(call, m), ctx)),
    stream: (call, ctx) => firstThenRest(ctx, sentOf(call), (m) => nativeOf(m).stream(toMember(call, m), ctx)),
  });
  return registerMembers(adapter, members);
}

/** Per-request state in one typed place: `res.locals.gateway`. */
import type { Response } from 'express';
import type { TokenEstimate } from './billing/estimate';
import { UsageTracker } from './billing/usage';
import type { ErrorCode } from './errors';
import type { WireFormat } from './wire/error-wire';
import type { ModelEntry } from './catalog';
import type { Caller } from './types';
import type { CallContext } from './upstreams/call-context';
import type { UpstreamAttempt } from './upstreams/types';

/** State of one request as it goes through the pipeline. */
export interface GatewayContext {
  readonly requestId: string;
  /** Epoch milliseconds at arrival. */
  readonly startedAt: number;
  /** High-resolution arrival time (performance.now()). */
  readonly startedHr: number;
  /** Endpoint label for the log, e.g. "messages", "rerank", "chat_completions". */
  endpoint: string;
  /** The wire format the route answers in (errors written outside its handlers, at shutdown, follow it). */
  readonly wireFormat: WireFormat;
  caller?: Caller;
  /** How the caller authenticated. */
  authScheme?: 'x-api-key' | 'bearer';
  model?: ModelEntry;
  /** The model name a refused request asked for (at most 256 characters): the log names it when no model resolved. */
  requestedModel?: string;
  stream: boolean;
  estimate?: TokenEstimate;
  /** Held amount once `reserve` succeeded. */
  hold?: number;
  readonly usage: UsageTracker;
  upstream?: string;
  /** Upstream attempts made by failover(), in order. */
  readonly attempts: UpstreamAttempt[];
  errorCode?: ErrorCode;
  /** Private diagnosis for the log. */
  detail?: string;
  /** Set when the upstream's answer was refused as invalid (GatewayError `invalidAnswer`): the request is not billed. */
  invalidAnswer: boolean;
  ttfbMs?: number;
  user?: string;
  /** A chat-completions stream whose caller asked for the usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
  /** A request that is never billed (count_tokens): logged, not settled. */
  unbilled: boolean;
  /** Set when the response closed (finished or abandoned); later stages must not start work. */
  closed: boolean;
  /** Set when the whole answer reached the client (a stream through `message_stop`): its upstream call may drain. */
  answered?: boolean;
  /** The billingHook() that settles this request (the first one met); later ones stand aside. */
  settledBy?: object;
  /** Set once the request's settlement was written (or set aside): its slots need no more renewal. */
  settled: boolean;
  /** The gracefulShutdown() gate that counts this request (the first one met); later ones stand aside. */
  gatedBy?: object;
  /** Where that gate keeps this request's response. */
  gateSlot: number;
  /** Work (a proxy call) that must end before the request is settled. */
  work?: Promise<void>;
  /** The proxy's upstream call, aborted if the response closes before it ended. */
  upstreamCall?: CallContext;
  /** Run once the request is over, before it is settled (limits corrections). */
  readonly finalizers: Array<(ctx: GatewayContext) => unknown>;
  /** Run in order when the response closes; see onResponseClose(). */
  readonly closeHooks: Array<CloseHook>;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      gateway?: GatewayContext;
    }
  }
}

/**
 * Creates the context of a new request. Every field exists from the start, in one order, so the
 * object keeps one hidden class for its whole life: stages that set `caller`, `model`, `hold`…
 * later change values, not its shape, and code shared by the stages stays monomorphic.
 */
export function createContext(requestId: string, endpoint: string, wireFormat: WireFormat = 'anthropic'): GatewayContext {
  return {
    requestId, startedAt: Date.now(), startedHr: performance.now(), endpoint, wireFormat,
    caller: undefined, authScheme: undefined, model: undefined, requestedModel: undefined, stream: false, estimate: undefined, hold: undefined,
    usage: new UsageTracker(), upstream: undefined, attempts: [], errorCode: undefined, detail: undefined, invalidAnswer: false,
    ttfbMs: undefined, user: undefined, includeUsage: false, unbilled: false, closed: false, answered: false, settledBy: undefined, settled: false, gatedBy: undefined, gateSlot: -1, work: undefined, upstreamCall: undefined,
    finalizers: [], closeHooks: [],
  };
}

/** What runs when a response closes: given the request's context and response, so one function serves every request. */
export type CloseHook = (ctx: GatewayContext, res: Response) => void;

/**
 * Runs `hook` when the response closes (finished, failed or abandoned). Every stage shares the
 * one `close` listener requestId() sets, instead of adding and removing its own per request.
 */
export function onResponseClose(ctx: GatewayContext, hook: CloseHook): void {
  ctx.closeHooks.push(hook);
}

/** The `close` listener requestId() sets on every response (`this` is the response): marks the request closed and runs its hooks. */
export function responseClosed(this: Response): void {
  const ctx = this.locals.gateway;
  if (!ctx) return;
  ctx.closed = true;
  for (const hook of ctx.closeHooks) hook(ctx, this);
}

/**
 * Whether a request needs nothing more kept alive for it: settled, or (with no billingHook()
 * to settle it) closed with its upstream call over.
 */
export function requestOver(ctx: GatewayContext): boolean {
  return ctx.settled || (ctx.settledBy === undefined && ctx.closed && ctx.work === undefined);
}

/**
 * The context of a request; throws when the `requestId` middleware did not run first
 * (a composition mistake of the host, not of the client).
 */
export function gatewayContext(res: Response): GatewayContext {
  const ctx = res.locals.gateway;
  if (!ctx) throw new Error('model-gateway: the requestId() middleware must run before this middleware.');
  return ctx;
}

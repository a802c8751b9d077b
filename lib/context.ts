/**
 * Per-request state in one typed place, `res.locals.gateway`: the facts of one request, and its
 * lifecycle as a small API (onResponseClose, track, atEnd, concludeBy) that each stage uses for its
 * own bookkeeping, so no stage runs or reads another's.
 */
import type { Response } from 'express';
import type { TokenEstimate } from './billing/estimate';
import type { SessionRef } from './budgets/session';
import type { ScopeHold } from './stores/budgets';
import { UsageTracker } from './billing/usage';
import type { ErrorCode } from './foundation/errors';
import { isThenable } from './foundation/sync';
import type { WireFormat } from './wire/error-wire';
import type { ModelEntry } from './catalog/catalog';
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
  /**
   * The body in the client's own format (chat, Responses) as validated, once a translation stage
   * (chatToMessages(), responsesToMessages()) handed on its Messages body in `req.body`; the Responses
   * pass-through sends it. Undefined on the Messages routes, whose `req.body` is the client's.
   */
  clientBody?: Readonly<Record<string, unknown>>;
  /**
   * The model name the request asked for when it is not the resolved model's id (an alias, a name a
   * pattern matched: the answer carries it, see answerModel()), or when no model resolved (at most
   * 256 characters: the log names it then).
   */
  requestedModel?: string;
  stream: boolean;
  estimate?: TokenEstimate;
  /** Held amount once `reserve` succeeded. */
  hold?: number;
  /** The budgets the request is held on (each in the period it was admitted in) and the bound held: set by reserve() when any budget is on its path. */
  budget?: { readonly scopes: readonly ScopeHold[]; readonly bound: number };
  /** The client session the request names, and where its id was read. */
  session?: SessionRef;
  /** The subagent that made it. */
  agentId?: string;
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
  /** Ends the open stream with its own format's error frame (a Responses stream's `response.failed`): set by streamAnswer(), used at shutdown. */
  endStream?: (code: ErrorCode, message: string) => void;
  /** What concludes this request once it is over (the first billingHook() met); see concludeBy(). */
  conclusion?: Conclusion;
  /** Set once the request's settlement was written (or set aside): its slots need no more renewal. */
  settled: boolean;
  /** The gracefulShutdown() gate that counts this request (the first one met); later ones stand aside. */
  gatedBy?: object;
  /** Where that gate keeps this request's response. */
  gateSlot: number;
  /** Work (a proxy call) that must end before the request concludes; see track(). */
  work?: Promise<void>;
  /** The proxy's upstream call, aborted if the response closes before it ended. */
  upstreamCall?: CallContext;
  /** The stages' wrap-ups, run once the request is over; see atEnd(). */
  readonly endings: Array<(ctx: GatewayContext) => unknown>;
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
    caller: undefined, authScheme: undefined, model: undefined, clientBody: undefined, requestedModel: undefined, stream: false, estimate: undefined, hold: undefined,
    budget: undefined, session: undefined, agentId: undefined, usage: new UsageTracker(), upstream: undefined, attempts: [], errorCode: undefined, detail: undefined, invalidAnswer: false,
    ttfbMs: undefined, user: undefined, includeUsage: false, unbilled: false, closed: false, answered: false, endStream: undefined, conclusion: undefined, settled: false, gatedBy: undefined, gateSlot: -1, work: undefined, upstreamCall: undefined,
    endings: [], closeHooks: [],
  };
}

/** The model name a request's answer carries: the name the client asked for (the id, an alias, or a name a pattern matched). */
export function answerModel(ctx: GatewayContext): string {
  return ctx.requestedModel ?? ctx.model?.id ?? '';
}

/**
 * The lifecycle, in order: the stages run; the response closes (onResponseClose hooks); the tracked
 * work ends (track); the request is over: its conclusion (billingHook) runs, and runs the stages'
 * wrap-ups (atEnd) at its point of choice; with no conclusion, the wrap-ups run by themselves.
 */

/** What runs when a response closes: given the request's context and response, so one function serves every request. */
export type CloseHook = (ctx: GatewayContext, res: Response) => void;

/**
 * Runs `hook` when the response closes (finished, failed or abandoned). Every stage shares the
 * one `close` listener requestId() sets, instead of adding and removing its own per request.
 */
export function onResponseClose(ctx: GatewayContext, hook: CloseHook): void {
  ctx.closeHooks.push(hook);
}

/** Makes the request wait for `work` (its upstream call) before it concludes; the request forgets it once it ended. */
export function track(ctx: GatewayContext, work: Promise<unknown>): void {
  const forget = (): void => {
    if (ctx.work === tracked) ctx.work = undefined;
  };
  const tracked: Promise<void> = work.then(forget, forget);
  ctx.work = tracked;
}

/**
 * Runs `wrapUp` once the request is over, before its record is written (a concurrency slot given
 * back, a note for the log). A promise it returns is kept until it settles (router.close() waits
 * for it); what it throws or rejects with changes nothing.
 */
export function atEnd(ctx: GatewayContext, wrapUp: (ctx: GatewayContext) => unknown): void {
  ctx.endings.push(wrapUp);
}

/** Runs the stages' wrap-ups (atEnd), each promise they return handed to `keep`. */
export type WrapUps = (keep: (pending: PromiseLike<unknown>) => void) => void;

/** What concludes a request once it is over: decides, settles and logs it, running `wrapUps` where it chooses. */
export type Conclusion = (ctx: GatewayContext, res: Response, wrapUps: WrapUps) => void;

/** Makes `conclusion` the one that concludes the request; false when another came first (that one stands). */
export function concludeBy(ctx: GatewayContext, conclusion: Conclusion): boolean {
  if (ctx.conclusion) return false;
  ctx.conclusion = conclusion;
  return true;
}

/** Ignores a rejection: a wrap-up that fails changes nothing. */
const ignore = (pending: PromiseLike<unknown>): void => {
  pending.then(undefined, () => undefined);
};

/** The request is over: its conclusion runs (with the wrap-ups), or the wrap-ups alone. */
function end(ctx: GatewayContext, res: Response): void {
  const wrapUps: WrapUps = (keep) => {
    for (const wrapUp of ctx.endings) {
      try {
        const out = wrapUp(ctx);
        if (isThenable(out)) keep(out);
      } catch {
        // a wrap-up that throws must not stop the others, nor the record
      }
    }
  };
  if (ctx.conclusion) ctx.conclusion(ctx, res, wrapUps);
  else wrapUps(ignore);
}

/** The `close` listener requestId() sets on every response (`this` is the response): marks the request closed, runs its hooks, and ends it once its work did. */
export function responseClosed(this: Response): void {
  const ctx = this.locals.gateway;
  if (!ctx) return;
  ctx.closed = true;
  for (const hook of ctx.closeHooks) hook(ctx, this);
  if (!ctx.conclusion && ctx.endings.length === 0) return;
  const work = ctx.work;
  if (work) work.then(() => end(ctx, this), () => end(ctx, this));
  else end(ctx, this);
}

/**
 * Whether a request needs nothing more kept alive for it: settled, or (with no billingHook()
 * to conclude it) closed with its upstream call over.
 */
export function requestOver(ctx: GatewayContext): boolean {
  return ctx.settled || (ctx.conclusion === undefined && ctx.closed && ctx.work === undefined);
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

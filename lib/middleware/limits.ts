/** limits(): per-caller requests per minute, tokens per minute and concurrent requests. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { NextFunction, RequestHandler } from 'express';
import { defaultEstimator, type Estimator } from '../billing/estimate';
import { weightedTokens } from '../billing/pricing';
import { atEnd, gatewayContext, requestOver, type GatewayContext } from '../context';
import { pricedByOf } from './billing-records';
import { GatewayError } from '../foundation/errors';
import type { Counter, Taken } from '../limits/counter';
import { limiterPool, type LimitKind, type LimiterBackendOptions } from '../limits/limiters';
import type { Slot, Slots } from '../limits/slots';
import type { GatewayObserver } from '../observe/observer';
import { isThenable } from '../foundation/sync';
import type { Caller, LimitSettings } from '../types';

/** Options of limits(). */
export interface LimitsOptions extends LimiterBackendOptions {
  /** Limits of every caller unless its own `limits` override them. Default: {} (unlimited). */
  defaults?: LimitSettings;
  /** Admission estimate for tpm. Default: defaultEstimator. */
  estimator?: Estimator;
  /**
   * When the counters' backend (Redis) fails: false refuses the request with 500 `api_error`
   * (fails closed); true admits it without the limits that failed (fails open: served and
   * billed as usual, the failure noted in its log line and told to the observer). Default: false.
   */
  failOpen?: boolean;
}

/** What limits() takes besides its options: who is told of a request admitted without its limits. */
export interface LimitsHooks {
  observer?: GatewayObserver;
}

const refused = (kind: LimitKind, retryMs: number): GatewayError => {
  // A concurrency slot frees when a request ends, not when a window does: retry soon.
  const seconds = kind === 'concurrency' ? 1 : Math.max(1, Math.ceil(retryMs / 1000));
  return new GatewayError('rate_limit_error', `Rate limit exceeded (${kind}); retry after ${seconds} s.`, { retryAfter: seconds });
};

const unavailable = (err: unknown): GatewayError =>
  new GatewayError('api_error', 'Rate limiting is unavailable; retry later.', { detail: `limits backend: ${String(err)}` });

/** One limit of a caller, in the order they are taken (rpm, concurrency, tpm). */
type Step =
  | { readonly kind: 'rpm' | 'tpm'; readonly counter: Counter }
  | { readonly kind: 'concurrency'; readonly limit: number };

/** A caller's limits, resolved from its own and the defaults. */
interface Plan {
  readonly steps: readonly Step[];
  readonly tpmLimit: number;
  /** Whether a concurrency slot is taken. */
  readonly slotted: boolean;
  /** Whether something is given back when a request ends (a concurrency or tpm limit). */
  readonly corrected: boolean;
}

/** Callers whose plans are remembered (by caller object, the last one seen per id); then it starts afresh. */
const PLAN_CACHE_SIZE = 10_000;

/**
 * Needs authenticate() before it. Once the request is over (atEnd(): after billingHook() decided
 * it, where there is one) it gives its concurrency slot back and corrects tpm. Counts tokens at admission from the estimate and corrects the count when the request
 * settles (with the confirmed usage). Exceeded: 429 `rate_limit_error` with `retry-after`;
 * refused requests count against nothing. A counter backend that fails refuses the request
 * (fails closed) with 500 `api_error`, or with `failOpen` skips the limits that failed.
 */
export function limits(options: LimitsOptions = {}, hooks: LimitsHooks = {}): RequestHandler {
  const defaults = Object.freeze({ ...options.defaults });
  for (const [key, value] of Object.entries(defaults)) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', `limits: option "defaults.${key}" must be a non-negative integer (0 = unlimited).`);
  }
  const pool = limiterPool(options);
  const slots: Slots = pool.slots;
  const estimator = options.estimator ?? defaultEstimator;
  const failOpen = options.failOpen === true;
  if (options.failOpen !== undefined && typeof options.failOpen !== 'boolean') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'limits: option "failOpen" must be true or false.');
  const observer = hooks.observer;
  // Callers come back as the same object from the stores (MemoryStore, PostgresStore's key
  // cache): their plans are looked up once, not rebuilt from their limits on every request.
  const plans = new Map<string, { caller: Caller; plan: Plan }>();
  const planFor = (caller: Caller): Plan => {
    const known = plans.get(caller.id);
    if (known?.caller === caller) return known.plan;
    const merged: LimitSettings = { ...defaults, ...caller.limits };
    const steps = (['rpm', 'concurrency', 'tpm'] as const).filter((kind) => merged[kind]).map((kind): Step => {
      const limit = merged[kind] as number;
      return Object.freeze(kind === 'concurrency' ? { kind, limit } : { kind, counter: pool.window(kind, limit) });
    });
    const plan: Plan = Object.freeze({ steps, tpmLimit: merged.tpm ?? 0, slotted: Boolean(merged.concurrency), corrected: steps.some((step) => step.kind !== 'rpm') });
    if (plans.size >= PLAN_CACHE_SIZE) plans.clear();
    plans.set(caller.id, { caller, plan });
    return plan;
  };

  /** Takes one step for an admission. */
  const takeStep = (step: Step, a: Admission): Taken | Promise<Taken> =>
    step.kind === 'concurrency' ? slots.take(a.slot as Slot, step.limit) : step.counter.take(a.callerId, step.kind === 'tpm' ? a.tokens : 1);

  /** Gives back what a step took: on a later step's refusal (`used` undefined) or when the request is over. */
  const giveBack = (step: Step, a: Admission, used?: number): unknown => {
    if (step.kind === 'rpm') return undefined; // a request that was refused still arrived
    if (step.kind === 'concurrency') return slots.give(a.slot as Slot);
    if (used === undefined) return step.counter.give(a.callerId, a.tokens);
    return used < a.tokens ? step.counter.give(a.callerId, a.tokens - used) : used > a.tokens ? step.counter.add(a.callerId, used - a.tokens) : undefined;
  };

  /** Once the request is over: its slot back, and tpm corrected to the confirmed usage. */
  const finish = (a: Admission): Promise<unknown> | undefined => {
    let pending: Array<PromiseLike<unknown>> | undefined;
    const usage = a.ctx.usage.snapshot();
    const known = usage.provenance === 'confirmed' || usage.provenance === 'partial';
    const { pricing, format } = pricedByOf(a.ctx);
    const used = weightedTokens(usage, pricing, format);
    for (const step of a.steps) {
      if ((step.kind === 'tpm' && !known) || a.skipped?.includes(step)) continue;
      const out = giveBack(step, a, step.kind === 'tpm' ? used : undefined);
      if (isThenable(out)) (pending ??= []).push(out);
    }
    return pending && Promise.all(pending);
  };

  /** Takes the steps from `from` on, at once while the counters answer at once (no promise in memory). */
  const take = (a: Admission, from: number): void => {
    for (let i = from; i < a.steps.length; i++) {
      const step = a.steps[i] as Step;
      let out: Taken | Promise<Taken>;
      try {
        out = takeStep(step, a);
      } catch (err) {
        if (failOpen) {
          skip(a, step, err);
          continue;
        }
        stop(a, i, unavailable(err));
        return;
      }
      if (isThenable(out)) {
        out.then((answer) => (answer.ok ? take(a, i + 1) : stop(a, i, refused(step.kind, answer.retryMs))), (err: unknown) => {
          if (!failOpen) return stop(a, i, unavailable(err));
          skip(a, step, err);
          return take(a, i + 1);
        });
        return;
      }
      if (!out.ok) {
        stop(a, i, refused(step.kind, out.retryMs));
        return;
      }
    }
    if (a.skipped) failedOpen(a);
    if (a.corrected) atEnd(a.ctx, () => finish(a));
    a.next();
  };

  /** Fails open: the step's limit is left out of this admission (nothing to give back for it), its failure kept for the log. */
  const skip = (a: Admission, step: Step, err: unknown): void => {
    (a.skipped ??= []).push(step);
    a.cause ??= err;
  };

  /** The request goes on without the limits that failed: its log line says so, and the observer is told (a warning, a metric). */
  const failedOpen = (a: Admission): void => {
    const kinds = (a.skipped ?? []).map((step) => step.kind);
    const note = `limits backend: ${String(a.cause)}; admitted without ${kinds.join(', ')} (limits.failOpen)`;
    a.ctx.detail = a.ctx.detail ? `${a.ctx.detail}; ${note}` : note;
    try {
      observer?.limitsFailedOpen?.(kinds, a.cause);
    } catch {
      // an observer that throws changes nothing
    }
  };

  /** Step `at` refused or failed: what the earlier steps took is given back (not awaited), and the request gets `error`. */
  const stop = (a: Admission, at: number, error: GatewayError): void => {
    for (let i = 0; i < at; i++) {
      const step = a.steps[i] as Step;
      if (!a.skipped?.includes(step)) Promise.resolve(giveBack(step, a)).catch(() => undefined);
    }
    a.next(error);
  };

  return function limitsMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const caller = ctx.caller;
    if (!caller) {
      next(new Error('model-gateway: limits() needs authenticate() before it.'));
      return;
    }
    const { steps, tpmLimit, slotted, corrected } = planFor(caller);
    let tokens = 0;
    if (tpmLimit > 0) {
      const estimate = (ctx.estimate ??= estimator(req.body));
      tokens = estimate.inputTokens + estimate.outputTokens;
      if (tokens > tpmLimit) {
        next(new GatewayError('rate_limit_error', `Request needs about ${tokens} tokens, more than the limit of ${tpmLimit} tokens per minute.`));
        return;
      }
    }
    const slot: Slot | undefined = slotted ? { key: caller.id, id: ctx.requestId, over: () => requestOver(ctx) } : undefined;
    take({ ctx, steps, callerId: caller.id, slot, tokens, corrected, next, skipped: undefined, cause: undefined }, 0);
  };
}

/** One admission: the steps to take for a caller, and where it goes next. */
interface Admission {
  readonly ctx: GatewayContext;
  readonly steps: readonly Step[];
  readonly callerId: string;
  /** The request's concurrency slot, when the caller has a concurrency limit. */
  readonly slot: Slot | undefined;
  /** Tokens counted at admission (the estimate), for tpm. */
  readonly tokens: number;
  readonly corrected: boolean;
  readonly next: NextFunction;
  /** Steps left out because their backend failed (failOpen); undefined while none is. */
  skipped: Step[] | undefined;
  /** The first failure of a skipped step. */
  cause: unknown;
}

/** limits(): per-caller requests per minute, tokens per minute and concurrent requests. */
import type { NextFunction, RequestHandler } from 'express';
import { defaultEstimator, type Estimator } from '../billing/estimate';
import { gatewayContext, type GatewayContext } from '../context';
import { GatewayError } from '../errors';
import type { Counter, Taken } from '../limits/counter';
import { limiterPool, type LimitKind, type LimiterBackendOptions } from '../limits/limiters';
import type { Caller, LimitSettings } from '../types';

/** Options of limits(). */
export interface LimitsOptions extends LimiterBackendOptions {
  /** Limits of every caller unless its own `limits` override them. Default: {} (unlimited). */
  defaults?: LimitSettings;
  /** Admission estimate for tpm. Default: defaultEstimator. */
  estimator?: Estimator;
}

const refused = (kind: LimitKind, retryMs: number): GatewayError => {
  // A concurrency slot frees when a request ends, not when a window does: retry soon.
  const seconds = kind === 'concurrency' ? 1 : Math.max(1, Math.ceil(retryMs / 1000));
  return new GatewayError('rate_limit_error', `Rate limit exceeded (${kind}); retry after ${seconds} s.`, { retryAfter: seconds });
};

const unavailable = (err: unknown): GatewayError =>
  new GatewayError('api_error', 'Rate limiting is unavailable; retry later.', { detail: `limits backend: ${String(err)}` });

/** One limit of a caller: its kind and counter, in the order they are taken (rpm, concurrency, tpm). */
interface Step {
  readonly kind: LimitKind;
  readonly counter: Counter;
}

/** A caller's limits, resolved from its own and the defaults. */
interface Plan {
  readonly steps: readonly Step[];
  readonly tpmLimit: number;
  /** Whether something is given back when a request ends (a concurrency or tpm limit). */
  readonly corrected: boolean;
}

/** Callers whose plans are remembered (by caller object, the last one seen per id); then it starts afresh. */
const PLAN_CACHE_SIZE = 10_000;

/** What one step gives back once its request is over: the slot, or the tpm estimate corrected to the confirmed usage. */
function correction(ctx: GatewayContext, step: Step, id: string, tokens: number): unknown {
  if (step.kind === 'concurrency') return step.counter.give(id, 1);
  if (step.kind !== 'tpm') return undefined;
  const usage = ctx.usage.snapshot();
  if (usage.provenance !== 'confirmed' && usage.provenance !== 'partial') return undefined;
  const actual = usage.inputTokens + usage.outputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens;
  return actual < tokens ? step.counter.give(id, tokens - actual) : actual > tokens ? step.counter.add(id, actual - tokens) : undefined;
}

/** The corrections of every step: a promise only while a counter (Redis) is still answering. */
function corrections(ctx: GatewayContext, steps: readonly Step[], id: string, tokens: number): Promise<unknown> | undefined {
  let pending: Array<Promise<unknown>> | undefined;
  for (const step of steps) {
    const out = correction(ctx, step, id, tokens);
    if (out instanceof Promise) (pending ??= []).push(out);
  }
  return pending && Promise.all(pending);
}

/**
 * Needs authenticate() before it and billingHook() around it (its finalizers give concurrency
 * slots back and correct tpm; without it a slot is never given back). Counts tokens at admission
 * from the estimate and corrects the count when the request settles (with the confirmed usage).
 * Exceeded: 429 `rate_limit_error` with `retry-after`; refused requests count against nothing.
 * A counter backend that fails refuses the request (fails closed) with 500 `api_error`. In-process
 * counters answer at once, so admission takes no promise; Redis counters are awaited.
 */
export function limits(options: LimitsOptions = {}): RequestHandler {
  const defaults = Object.freeze({ ...options.defaults });
  for (const [key, value] of Object.entries(defaults)) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw new TypeError(`limits: option "defaults.${key}" must be a non-negative integer (0 = unlimited).`);
  }
  const counter = limiterPool(options);
  const estimator = options.estimator ?? defaultEstimator;
  // Callers come back as the same object from the stores (MemoryStore, PostgresStore's key
  // cache): their counters are looked up once, not rebuilt from their limits on every request.
  const plans = new Map<string, { caller: Caller; plan: Plan }>();
  const planFor = (caller: Caller): Plan => {
    const known = plans.get(caller.id);
    if (known?.caller === caller) return known.plan;
    const merged: LimitSettings = { ...defaults, ...caller.limits };
    const steps = (['rpm', 'concurrency', 'tpm'] as const).filter((kind) => merged[kind]).map((kind) => Object.freeze({ kind, counter: counter(kind, merged[kind] as number) }));
    const plan: Plan = Object.freeze({ steps, tpmLimit: merged.tpm ?? 0, corrected: steps.some((step) => step.kind !== 'rpm') });
    if (plans.size >= PLAN_CACHE_SIZE) plans.clear();
    plans.set(caller.id, { caller, plan });
    return plan;
  };

  // One finalizer for every request: what a request took is found again from its context.
  const correct = (ctx: GatewayContext): unknown => {
    const caller = ctx.caller as Caller;
    const { steps, tpmLimit } = planFor(caller);
    return corrections(ctx, steps, caller.id, tpmLimit > 0 ? tokensOf(ctx) : 0);
  };

  return function limitsMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    const caller = ctx.caller;
    if (!caller) {
      next(new Error('model-gateway: limits() needs authenticate() before it.'));
      return;
    }
    const { steps, tpmLimit, corrected } = planFor(caller);
    let tokens = 0;
    if (tpmLimit > 0) {
      ctx.estimate ??= estimator(req.body);
      tokens = tokensOf(ctx);
      if (tokens > tpmLimit) {
        next(new GatewayError('rate_limit_error', `Request needs about ${tokens} tokens, more than the limit of ${tpmLimit} tokens per minute.`));
        return;
      }
    }
    take({ ctx, steps, id: caller.id, tokens, finalizer: corrected ? correct : undefined, next }, 0);
  };
}

/** Tokens counted for a request at admission: its estimate, input and output. */
function tokensOf(ctx: GatewayContext): number {
  const estimate = ctx.estimate;
  return estimate ? estimate.inputTokens + estimate.outputTokens : 0;
}

/** One admission: the steps to take for a caller, and where it goes next. */
interface Admission {
  readonly ctx: GatewayContext;
  readonly steps: readonly Step[];
  readonly id: string;
  readonly tokens: number;
  /** Gives back what the request took once it is over (set when a step has something to give back). */
  readonly finalizer: ((ctx: GatewayContext) => unknown) | undefined;
  readonly next: NextFunction;
}

const pointsOf = (step: Step, tokens: number): number => (step.kind === 'tpm' ? tokens : 1);

/** Takes the steps from `from` on, at once while the counters answer at once (no promise in memory). */
function take(admission: Admission, from: number): void {
  const { steps, id, tokens } = admission;
  for (let i = from; i < steps.length; i++) {
    const step = steps[i] as Step;
    let out: Taken | Promise<Taken>;
    try {
      out = step.counter.take(id, pointsOf(step, tokens));
    } catch (err) {
      stop(admission, i, unavailable(err));
      return;
    }
    if (out instanceof Promise) {
      out.then((answer) => (answer.ok ? take(admission, i + 1) : stop(admission, i, refused(step.kind, answer.retryMs))), (err: unknown) => stop(admission, i, unavailable(err)));
      return;
    }
    if (!out.ok) {
      stop(admission, i, refused(step.kind, out.retryMs));
      return;
    }
  }
  if (admission.finalizer) admission.ctx.finalizers.push(admission.finalizer);
  admission.next();
}

/** Step `at` refused or failed: what the earlier steps took is given back (not awaited), and the request gets `error`. */
function stop(admission: Admission, at: number, error: GatewayError): void {
  for (let i = 0; i < at; i++) {
    const step = admission.steps[i] as Step;
    if (step.kind === 'rpm') continue; // a request that was refused still arrived
    Promise.resolve(step.counter.give(admission.id, pointsOf(step, admission.tokens))).catch(() => undefined);
  }
  admission.next(error);
}
